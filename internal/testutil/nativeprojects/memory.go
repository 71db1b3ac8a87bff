package nativeprojects

import "maps"

// The memory-error projects: one library, memlib.c, and four test
// programs, each of which crashes (or not) as the memcheck rerun of a
// crashed test must tell apart:
//
//	t_overflow  label() writes 40 bytes into a 24-byte block (memlib.c:13,
//	            allocated at memlib.c:11); table_sum's malloc at memlib.c:18
//	            dies of it later: "malloc(): corrupted top size", SIGABRT
//	t_uaf       list_sum() reads a node (memlib.c:29) that main freed at
//	            t_uaf.c:8 (allocated in push at memlib.c:34), whose block
//	            glibc handed out again: SIGSEGV at the wild 0x5a5a5a5a5a62
//	t_null      head_value() reads through NULL (memlib.c:40): SIGSEGV
//	t_fake      prints glibc's "free(): invalid pointer" and raises
//	            SIGSEGV: looks like memory corruption, is none
//	t_uninit    job_run() branches on a field job_new() left unset
//	            (memlib.c:57, allocated at memlib.c:51); the block glibc
//	            hands out again holds a freed one's bytes, so it writes
//	            through a wild pointer: SIGSEGV at 0x5a5a5a5a5a5a
//	t_dfree     (C++, CMake and Makefile only: memCxxTests) a double free
//
// CMakeMemory runs them under CTest (in tests/, run from build/tests),
// AutomakeMemory under make check, MesonMemory under meson test,
// MakeMemory from a Makefile's test target.

// memlibC is the library; its line numbers are the tests' expectations.
const memlibC = `#include <stdlib.h>
#include <string.h>

struct node {
	struct node *next;
	long value;
};

/* label writes n bytes into a 24-byte block: past its end when n > 24. */
char *label(size_t n) {
	char *p = malloc(24);
	for (size_t i = 0; i < n; i++)
		p[i] = 'A';
	return p;
}

long table_sum(size_t n) {
	long *t = malloc(n * sizeof *t);
	long s = 0;
	for (size_t i = 0; i < n; i++)
		t[i] = (long)i, s += t[i];
	free(t);
	return s;
}

long list_sum(const struct node *n) {
	long s = 0;
	for (; n != NULL; n = n->next)
		s += n->value;
	return s;
}

struct node *push(struct node *next, long value) {
	struct node *n = malloc(sizeof *n);
	n->next = next, n->value = value;
	return n;
}

long head_value(const struct node *n) {
	return n->value;
}

struct job {
	struct job *next;
	long id;
	int ready;
	long *out;
};

struct job *job_new(long id) {
	struct job *j = malloc(sizeof *j);
	j->next = NULL, j->id = id; /* ready and out left unset */
	return j;
}

void job_run(struct job *j) {
	if (j->ready)
		*j->out = j->id;
}
`

// memTests are the test programs' sources, by name.
var memTests = map[string]string{
	"t_overflow.c": `#include <stddef.h>
char *label(size_t n);
long table_sum(size_t n);
int main(void) {
	char *l = label(40);
	long s = table_sum(500);
	return s == 0 && l[0] == 0;
}
`,
	"t_uaf.c": `#include <stdlib.h>
struct node { struct node *next; long value; };
struct node *push(struct node *next, long value);
long list_sum(const struct node *n);
int main(void) {
	struct node *b = push(NULL, 2);
	struct node *a = push(b, 1);
	free(a); /* and still used below */
	long *r = malloc(2 * sizeof *r); /* glibc hands out a's block again */
	r[0] = 0x5a5a5a5a5a5a, r[1] = 1;
	long s = list_sum(a);
	free(r);
	free(b);
	return s == 3 ? 0 : 1;
}
`,
	"t_null.c": `long head_value(const void *n);
int main(void) { return (int)head_value(0); }
`,
	"t_uninit.c": `#include <stdlib.h>
struct job *job_new(long id);
void job_run(struct job *j);
int main(void) {
	long *old = malloc(4 * sizeof *old); /* a freed block job_new gets again */
	for (int i = 0; i < 4; i++)
		old[i] = 0x5a5a5a5a5a5a;
	free(old);
	struct job *j = job_new(7);
	job_run(j);
	free(j);
	return 0;
}
`,
	"t_fake.c": `#include <signal.h>
#include <stdio.h>
int main(void) {
	fprintf(stderr, "free(): invalid pointer\n");
	raise(SIGSEGV);
	return 0;
}
`,
}

// memTestNames are the test programs, without their ".c".
var memTestNames = []string{"t_overflow", "t_uaf", "t_null", "t_fake", "t_uninit"}

// memCxxTests are the C++ test programs of the CMake and Makefile
// projects, by name: t_dfree's Buffer deletes its block in reset()
// (t_dfree.cpp:4) and again in its destructor (t_dfree.cpp:5), allocated
// by its member initialiser (in the implicit constructor, which debug
// information places at t_dfree.cpp:2): glibc aborts, "free(): double
// free detected in tcache 2".
var memCxxTests = map[string]string{
	"t_dfree.cpp": `#include <cstring>
struct Buffer {
	char *data = new char[32];
	void reset() { delete[] data; } /* and data is not set to nullptr */
	~Buffer() { delete[] data; }
};
int main() {
	Buffer b;
	std::strcpy(b.data, "x");
	b.reset();
	return b.data == nullptr;
}
`,
}

// CMakeMemory is a CMake project whose CTest tests (in tests/) are the
// memory-error programs, one test each by the program's name: run one
// with run: ["t_uaf"].
func CMakeMemory() map[string]string {
	files := map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(mem C CXX)\nenable_testing()\n" +
			"set(CMAKE_C_FLAGS \"-g -O0\")\nset(CMAKE_CXX_FLAGS \"-g -O0\")\nadd_library(memlib memlib.c)\nadd_subdirectory(tests)\n",
		"memlib.c": memlibC,
		"tests/CMakeLists.txt": "foreach(t t_overflow t_uaf t_null t_fake t_uninit)\n  add_executable(${t} ${t}.c)\n" +
			"  target_link_libraries(${t} memlib)\n  add_test(NAME ${t} COMMAND ${t})\nendforeach()\n" +
			"add_executable(t_dfree t_dfree.cpp)\nadd_test(NAME t_dfree COMMAND t_dfree)\n",
	}
	for name, src := range memTests {
		files["tests/"+name] = src
	}
	for name, src := range memCxxTests {
		files["tests/"+name] = src
	}
	return files
}

// AutomakeMemory is an autotools project whose make check runs the
// memory-error programs (TESTS): run one with args ["TESTS=t_uaf"]. Run
// `autoreconf -i` before the tests.
func AutomakeMemory() map[string]string {
	am := "AM_CFLAGS = -g -O0\ncheck_PROGRAMS = t_overflow t_uaf t_null t_fake t_uninit\nTESTS = $(check_PROGRAMS)\n"
	for _, t := range memTestNames {
		am += t + "_SOURCES = " + t + ".c memlib.c\n"
	}
	files := map[string]string{
		"configure.ac": "AC_INIT([mem], [1.0])\nAM_INIT_AUTOMAKE([foreign])\nAC_PROG_CC\nAC_CONFIG_FILES([Makefile])\nAC_OUTPUT\n",
		"Makefile.am":  am,
		"memlib.c":     memlibC,
	}
	maps.Copy(files, memTests)
	return files
}

// MakeMemory is a Makefile project whose test target builds and runs the
// one memory-error program test ("t_overflow", "t_uaf", …) with an
// argument (which it ignores): a plain make names no test, so the rerun
// finds the program by its core.
func MakeMemory(test string) map[string]string {
	build := "$(CC) $(CFLAGS) -o $@ " + test + ".c memlib.c"
	if _, cxx := memCxxTests[test+".cpp"]; cxx {
		build = "$(CXX) $(CXXFLAGS) -o $@ " + test + ".cpp"
	}
	files := map[string]string{
		"Makefile": "CFLAGS = -g -O0\nCXXFLAGS = -g -O0\n\n" + test + ":\n\t" + build + "\n\n" +
			"test: " + test + "\n\t./" + test + " --quick\n",
		"memlib.c": memlibC,
	}
	maps.Copy(files, memTests)
	maps.Copy(files, memCxxTests)
	return files
}

// MesonMemory is a meson project whose tests are the memory-error
// programs, one test each by the program's name: run one with run:
// ["t_uaf"].
func MesonMemory() map[string]string {
	build := "project('mem', 'c', default_options: ['optimization=0', 'debug=true'])\nmemlib = static_library('memlib', 'memlib.c')\n"
	for _, t := range memTestNames {
		build += "test('" + t + "', executable('" + t + "', '" + t + ".c', link_with: memlib))\n"
	}
	files := map[string]string{"meson.build": build, "memlib.c": memlibC}
	maps.Copy(files, memTests)
	return files
}

// CargoMemory is a crate whose test tests::overflows writes 2040 bytes
// into a Vec of capacity 2000 in unsafe code (fill, src/lib.rs:5); glibc
// dies of it later, as the test drops the Vec: "free(): invalid next size
// (normal)", SIGABRT; tests::adds passes.
func CargoMemory() map[string]string {
	return map[string]string{
		"Cargo.toml": "[package]\nname = \"memy\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\ndoctest = false\n",
		"src/lib.rs": `/// fill writes n bytes from v's start, past its capacity when n is larger.
pub fn fill(v: &mut Vec<u8>, n: usize) {
    let p = v.as_mut_ptr();
    for i in 0..n {
        unsafe { *p.add(i) = b'A' }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn adds() {
        assert_eq!(1 + 1, 2);
    }

    #[test]
    fn overflows() {
        let mut v: Vec<u8> = Vec::with_capacity(2000);
        super::fill(&mut v, 2040);
        assert_eq!(v.len(), 0);
    }
}
`,
	}
}
