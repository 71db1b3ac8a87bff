package nativeprojects

// The sanitizer projects' tests pass when built plainly: their bugs are
// seen only by a checker (the test tool's check).
var sanTests = map[string]string{
	// t_oob reads one int past a calloc'd block of 4 in sum at t_oob.c:6.
	"t_oob.c": `#include <stdio.h>
#include <stdlib.h>
int sum(const int *a, int n) {
	int s = 0;
	for (int i = 0; i <= n; i++)
		s += a[i];
	return s;
}
int main(void) {
	int *a = calloc(4, sizeof *a);
	volatile int s = sum(a, 4);
	(void)s;
	free(a);
	printf("oob ok\n");
	return 0;
}
`,
	// t_leak loses 64 bytes allocated in make_buf at t_leak.c:3.
	"t_leak.c": `#include <stdio.h>
#include <stdlib.h>
char *make_buf(void) { return malloc(64); }
char *volatile keep;
int main(void) {
	keep = make_buf();
	keep = 0;
	printf("leak ok\n");
	return 0;
}
`,
	// t_ovf overflows a signed int in add at t_ovf.c:3.
	"t_ovf.c": `#include <limits.h>
#include <stdio.h>
int add(int a, int b) { return a + b; }
int main(void) {
	volatile int x = INT_MAX;
	printf("ovf %d\n", add(x, 1) < 0);
	return 0;
}
`,
	// t_race bumps counter at t_race.c:4 from a thread and main.
	"t_race.c": `#include <pthread.h>
#include <stdio.h>
int counter;
void *bump(void *arg) { counter++; return arg; }
int main(void) {
	pthread_t t;
	pthread_create(&t, 0, bump, 0);
	counter++;
	pthread_join(t, 0);
	printf("race %d\n", counter > 0);
	return 0;
}
`,
}

// CMakeSanitize is a CMake project of four CTest tests, each passing when
// built plainly and each with a bug a sanitizer reports: t_oob (a heap
// read one past the end, sum at t_oob.c:6), t_leak (64 bytes allocated at
// t_leak.c:3 lost), t_ovf (signed overflow in add at t_ovf.c:3) and
// t_race (a data race on counter at t_race.c:4).
func CMakeSanitize() map[string]string {
	files := map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(san C)\nenable_testing()\n" +
			"find_package(Threads REQUIRED)\nset(CMAKE_C_FLAGS \"${CMAKE_C_FLAGS} -O0\")\n" +
			"foreach(t t_oob t_leak t_ovf t_race)\n  add_executable(${t} ${t}.c)\n" +
			"  target_link_libraries(${t} Threads::Threads)\n  add_test(NAME ${t} COMMAND ${t})\nendforeach()\n",
	}
	for name, src := range sanTests {
		files[name] = src
	}
	return files
}

// CMakeSanitizeAssigning is CMakeSanitize's t_oob in a project that
// assigns its compile and link flags outright (set(CMAKE_C_FLAGS "-O0
// -Wall")), as many do: flags given through CMAKE_C_FLAGS_INIT are lost.
func CMakeSanitizeAssigning() map[string]string {
	return map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(assigning C)\nenable_testing()\n" +
			"set(CMAKE_C_FLAGS \"-O0 -Wall\")\nset(CMAKE_EXE_LINKER_FLAGS \"\")\n" +
			"add_executable(t_oob t_oob.c)\nadd_test(NAME t_oob COMMAND t_oob)\n",
		"t_oob.c": sanTests["t_oob.c"],
	}
}

// AutomakeSanitize is an autotools project whose make check runs
// CMakeSanitize's four tests, t_oob, t_leak, t_ovf and t_race (threads
// through -pthread): each passes when built plainly. triage bootstraps it
// (autoreconf -fi).
func AutomakeSanitize() map[string]string {
	files := map[string]string{
		"configure.ac": "AC_INIT([san], [1.0])\nAM_INIT_AUTOMAKE([foreign])\nAC_PROG_CC\nAC_CONFIG_FILES([Makefile])\nAC_OUTPUT\n",
		"Makefile.am":  "AM_CFLAGS = -O0 -pthread\nAM_LDFLAGS = -pthread\ncheck_PROGRAMS = t_oob t_leak t_ovf t_race\nTESTS = $(check_PROGRAMS)\n",
	}
	for name, src := range sanTests {
		files[name] = src
	}
	return files
}

// GoRace is a Go module whose one test races on a counter at race.go:11
// (passes without -race).
func GoRace() map[string]string {
	return map[string]string{
		"go.mod": "module example.com/racy\n\ngo 1.22\n",
		"race.go": `package racy

import "sync"

// Count bumps n from two goroutines, unsynchronised.
func Count() int {
	var n int
	var wg sync.WaitGroup
	wg.Add(2)
	for range 2 {
		go func() { n++; wg.Done() }()
	}
	wg.Wait()
	return n
}
`,
		"race_test.go": "package racy\n\nimport \"testing\"\n\nfunc TestCount(t *testing.T) {\n\tif Count() < 1 {\n\t\tt.Fatal(\"no count\")\n\t}\n}\n",
	}
}

// MakeLeak is a Makefile project that builds its test t_leak with
// -fsanitize=address itself (a plain Makefile's flags are its own: check
// cannot add them): LeakSanitizer reports, at the test's exit, the 64
// bytes allocated in make_buf at t_leak.c:3 that it lost.
func MakeLeak() map[string]string {
	return map[string]string{
		"Makefile": "CFLAGS = -g -O0 -fsanitize=address -fno-omit-frame-pointer\n\n" +
			"t_leak: t_leak.c\n\t$(CC) $(CFLAGS) -o $@ t_leak.c\n\ntest: t_leak\n\t./t_leak\n",
		"t_leak.c": sanTests["t_leak.c"],
	}
}
