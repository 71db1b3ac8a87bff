// Package nativeprojects writes small real projects whose tests crash: a
// cargo crate whose tests overflow the stack or abort, a CMake project whose
// CTest tests (in a subdirectory, as real projects have them) segfault, abort
// and fail with Unity's failure lines, a Makefile whose test target runs a
// crashing program, an automake `make check` suite, and AddressSanitizer
// reports under CTest and make. Tests build and run them with the real
// toolchains; import it from _test files only.
package nativeprojects

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Write writes files (path → content) under a new temporary directory and
// returns it.
func Write(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Need skips the test when a tool is missing, naming the package that
// provides it; in CI (CI set) a missing tool fails the test instead.
func Need(t testing.TB, tools ...string) {
	t.Helper()
	for _, name := range tools {
		if _, err := exec.LookPath(name); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s not found (scripts/install-deps.sh installs it)", name)
			}
			t.Skipf("%s not found (scripts/install-deps.sh installs it)", name)
		}
	}
}

// Cargo is a crate with one passing test and, by the test name given, a
// test that overflows its stack ("overflows": tests::overflows) or calls
// std::process::abort() from library code ("aborts": tests::aborts, through
// give_up at src/lib.rs:7).
func Cargo(test string) map[string]string {
	body := map[string]string{
		"overflows": "    #[test]\n    fn overflows() { std::hint::black_box(recurse(1)); }\n",
		"aborts":    "    #[test]\n    fn aborts() { assert_eq!(give_up(1), 3); }\n",
	}[test]
	return map[string]string{
		"Cargo.toml": "[package]\nname = \"crashy\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\ndoctest = false\n",
		"src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n" +
			"#[allow(unconditional_recursion)]\npub fn recurse(n: u64) -> u64 { let a = [n; 64]; recurse(a[3] + 1) + a[5] }\n\n" +
			"pub fn give_up(n: i32) -> i32 {\n    if n > 0 { std::process::abort() }\n    n\n}\n\n" +
			"#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn adds() { assert_eq!(add(1, 2), 3); }\n" + body + "}\n",
	}
}

// CargoExiting is a crate whose test tests::b_exits ends its binary with
// exit(0) while other tests run on parallel threads: libtest prints names
// only of finished tests, so the output never names it (run it with
// --test-threads=3).
func CargoExiting() map[string]string {
	return map[string]string{
		"Cargo.toml": "[package]\nname = \"exiting\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
		"src/lib.rs": `pub fn add(a: u64, b: u64) -> u64 { a + b }

#[cfg(test)]
mod tests {
    #[test]
    fn a_adds() { assert_eq!(super::add(1, 2), 3); }

    #[test]
    fn b_exits() {
        std::thread::sleep(std::time::Duration::from_millis(200));
        std::process::exit(0);
    }

    #[test]
    fn c_waits() { std::thread::sleep(std::time::Duration::from_secs(2)); }
}
`,
	}
}

// CargoCovered is a crate for coverage runs: tests::clamps passes,
// tests::fails fails at src/lib.rs:32, unused (lines 11-14) never runs,
// and distance calls a dependency from Debian's packaged crates (strsim,
// /usr/share/cargo/registry), resolved offline by the crate's own cargo
// configuration.
func CargoCovered() map[string]string {
	return map[string]string{
		"Cargo.toml": "[package]\nname = \"covered\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nstrsim = \"0.10\"\n",
		".cargo/config.toml": "[source.crates-io]\nreplace-with = \"debian\"\n[source.debian]\ndirectory = \"/usr/share/cargo/registry\"\n" +
			"[net]\noffline = true\n",
		"src/lib.rs": `pub fn clamp(x: i32, lo: i32, hi: i32) -> i32 {
    if x < lo {
        return lo;
    }
    if x > hi {
        return hi;
    }
    x
}

pub fn unused(x: i32) -> i32 {
    let y = x * 2;
    y + 1
}

pub fn distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamps() {
        assert_eq!(clamp(5, 0, 10), 5);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn fails() {
        assert_eq!(clamp(-1, 0, 10), 1);
    }
}
`,
	}
}

// CMake is a CMake project whose tests live in tests/ (so CTest runs them,
// and cores land, in build/tests): t_ok passes, t_segv dereferences NULL in
// name_length at lib.c:4, t_abort (run in build/) aborts in check_positive
// at lib.c:7, and
// t_unity prints Unity's failure line "tests/t_unity.c:6:test_compare:FAIL:
// Expected 1 Was 2" and fails.
func CMake() map[string]string {
	return map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(cm C)\nenable_testing()\n" +
			"set(CMAKE_C_FLAGS \"-g -O0\")\nadd_library(lib lib.c)\nadd_subdirectory(tests)\n",
		"lib.c": libC,
		"tests/CMakeLists.txt": "foreach(t t_ok t_segv t_abort t_unity)\n  add_executable(${t} ${t}.c)\n" +
			"  target_link_libraries(${t} lib)\nendforeach()\nadd_test(NAME t_ok COMMAND t_ok)\nadd_test(NAME t_segv COMMAND t_segv)\n" +
			"add_test(NAME t_abort COMMAND t_abort WORKING_DIRECTORY ${CMAKE_BINARY_DIR})\nadd_test(NAME t_unity COMMAND t_unity)\n",
		"tests/t_ok.c":    "int name_length(const char *s);\nint main(void) { return name_length(\"ab\") == 2 ? 0 : 1; }\n",
		"tests/t_segv.c":  "#include <stdio.h>\nint name_length(const char *s);\nint main(void) {\n  printf(\"starting\\n\");\n  return name_length(0);\n}\n",
		"tests/t_abort.c": "int check_positive(int x);\nint main(void) { return check_positive(-1); }\n",
		"tests/t_unity.c": unityC,
	}
}

// libC is a library with a NULL dereference (name_length, lib.c:4) and an
// abort (check_positive, lib.c:7) for bad inputs.
const libC = "#include <stdlib.h>\n#include <string.h>\nint name_length(const char *s) {\n  return (int)strlen(s) + s[0] * 0;\n}\nint check_positive(int x) {\n  if (x < 0) abort();\n  return x;\n}\n"

// unityC prints what a Unity test program prints for one pass and one failure.
const unityC = "#include <stdio.h>\nint main(void) {\n" +
	"  printf(\"tests/t_unity.c:5:test_adds:PASS\\n\");\n" +
	"  printf(\"tests/t_unity.c:6:test_compare:FAIL: Expected 1 Was 2\\n\");\n" +
	"  printf(\"\\n-----------------------\\n2 Tests 1 Failures 0 Ignored \\nFAIL\\n\");\n  return 1;\n}\n"

// Make is a Makefile project whose test target first runs a checker that
// prints its own "check.c:3: FAIL …" line but passes on (the leading '-'),
// then a program that dereferences NULL in name_length at lib.c:4.
func Make() map[string]string {
	return map[string]string{
		"Makefile": "CFLAGS = -g -O0\n\nall: crasher check\n\ncrasher: crasher.c lib.c\n\t$(CC) $(CFLAGS) -o $@ crasher.c lib.c\n\n" +
			"check: check.c\n\t$(CC) $(CFLAGS) -o $@ check.c\n\ntest: all\n\t-./check\n\t./crasher\n",
		"lib.c":     libC,
		"crasher.c": "#include <stdio.h>\nint name_length(const char *s);\nint main(void) {\n  printf(\"crasher: starting\\n\");\n  return name_length(0);\n}\n",
		"check.c":   "#include <stdio.h>\nint main(void) {\n  printf(\"check.c:3: FAIL compare: expected 1, got 2\\n\");\n  return 1;\n}\n",
	}
}

// Automake is an autotools project whose `make check` runs test_ok (passes),
// test_segv (NULL dereference in name_length at lib.c:4) and test_fail
// (prints "test_fail.c:3: FAIL compare: expected 1, got 2", exits 1).
// Run `autoreconf -i` and `./configure` before the tests.
func Automake() map[string]string {
	return map[string]string{
		"configure.ac": "AC_INIT([am], [1.0])\nAM_INIT_AUTOMAKE([foreign])\nAC_PROG_CC\nAC_CONFIG_FILES([Makefile])\nAC_OUTPUT\n",
		"Makefile.am": "AM_CFLAGS = -g -O0\ncheck_PROGRAMS = test_ok test_segv test_fail\nTESTS = $(check_PROGRAMS)\n" +
			"test_segv_SOURCES = test_segv.c lib.c\n",
		"lib.c":       libC,
		"test_ok.c":   "int main(void) { return 0; }\n",
		"test_segv.c": "int name_length(const char *s);\nint main(void) { return name_length(0); }\n",
		"test_fail.c": "#include <stdio.h>\nint main(void) {\n  printf(\"test_fail.c:3: FAIL compare: expected 1, got 2\\n\");\n  return 1;\n}\n",
	}
}

// asanC overflows a heap buffer in fill at asan.c:4.
const asanC = "#include <stdlib.h>\nvoid fill(char *p, int n) {\n  for (int i = 0; i <= n; i++)\n    p[i] = 'x';\n}\n" +
	"int main(void) {\n  char *p = malloc(8);\n  fill(p, 8);\n  free(p);\n  return 0;\n}\n"

// CMakeASan is a CMake project with one test, t_asan, built with
// -fsanitize=address, that overflows a heap buffer in fill at asan.c:4.
func CMakeASan() map[string]string {
	return map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(asan C)\nenable_testing()\n" +
			"set(CMAKE_C_FLAGS \"-g -O0 -fsanitize=address -fno-omit-frame-pointer\")\nadd_subdirectory(tests)\n",
		"tests/CMakeLists.txt": "add_executable(t_asan asan.c)\nadd_test(NAME t_asan COMMAND t_asan)\n",
		"tests/asan.c":         asanC,
	}
}

// AutomakeASan is an automake project whose test_asan, built with
// -fsanitize=address, overflows a heap buffer in fill at asan.c:4: the
// sanitizer's report is in test_asan.log, not in make check's output
// (configure it with CFLAGS=-O0: -O2 removes the overflowing writes).
func AutomakeASan() map[string]string {
	return map[string]string{
		"configure.ac": "AC_INIT([am], [1.0])\nAM_INIT_AUTOMAKE([foreign])\nAC_PROG_CC\nAC_CONFIG_FILES([Makefile])\nAC_OUTPUT\n",
		"Makefile.am": "AM_CFLAGS = -g -O0\ncheck_PROGRAMS = test_ok test_asan\nTESTS = $(check_PROGRAMS)\n" +
			"test_asan_SOURCES = asan.c\ntest_asan_CFLAGS = $(AM_CFLAGS) -fsanitize=address -fno-omit-frame-pointer\ntest_asan_LDFLAGS = -fsanitize=address\n",
		"test_ok.c": "int main(void) { return 0; }\n",
		"asan.c":    asanC,
	}
}

// MakeASan is a Makefile project whose test target runs the same overflow.
func MakeASan() map[string]string {
	return map[string]string{
		"Makefile": "CFLAGS = -g -O0 -fsanitize=address -fno-omit-frame-pointer\n\n" +
			"asan: asan.c\n\t$(CC) $(CFLAGS) -o $@ asan.c\n\ntest: asan\n\t./asan\n",
		"asan.c": asanC,
	}
}
