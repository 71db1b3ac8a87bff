package e2e

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// callTest runs `triage call test` on dir and returns its exit status and
// output.
func callTest(t *testing.T, dir string) (int, string) {
	t.Helper()
	out, err := exec.Command(triageBin, "call", "test", "--store", ":memory:", "--project_dir", dir).Output()
	return exitCode(err), string(out)
}

// filterLog runs the command in dir (stdout and stderr together, as in a CI
// log) and pipes its output into `triage filter`.
func filterLog(t *testing.T, dir string, argv ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	log, _ := cmd.CombinedOutput()
	filter := exec.Command(triageBin, "filter")
	filter.Stdin = bytes.NewReader(log)
	out, err := filter.Output()
	return exitCode(err), string(out)
}

const goCutShortTest = `package calc

import (
	"syscall"
	"testing"
)

func TestAdd(t *testing.T) {
	if Add(1, 2) != 3 {
		t.Fatal("bad")
	}
}

func TestMid(t *testing.T) { syscall.Exit(0) }

func TestAfter(t *testing.T) {}
`

// TestGoTestCutShort: syscall.Exit(0) in a test ends the test binary with
// success; go test itself says ok. triage says the run ended before TestMid
// finished, through call test and through filter.
func TestGoTestCutShort(t *testing.T) {
	goBin := need(t, "go", "the Go toolchain (golang-go)")
	dir := nativeprojects.Write(t, map[string]string{
		"go.mod":            "module example.com/e2e\n\ngo 1.24\n",
		"calc/calc.go":      "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
		"calc/calc_test.go": goCutShortTest,
	})
	gotest := exec.Command(goBin, "test", "./...")
	gotest.Dir = dir
	if out, err := gotest.CombinedOutput(); err != nil || !strings.Contains(string(out), "ok  \texample.com/e2e/calc") {
		t.Logf("go test no longer passes a binary that exits 0 mid-test (%v):\n%s", err, out)
	}
	const want = "TESTS FAILED: the run ended before TestMid finished (example.com/e2e/calc: exit 0)"
	if code, out := callTest(t, dir); code != 1 || !strings.HasPrefix(out, want) {
		t.Errorf("triage call test: exit %d\n%s", code, out)
	}
	if code, out := filterLog(t, dir, goBin, "test", "-count=1", "-json", "./..."); code != 1 || !strings.HasPrefix(out, want) {
		t.Errorf("go test -json | triage filter: exit %d\n%s", code, out)
	}
}

// TestGoCompileErrors: compiler lines of go test -json (build-output
// events) are the verdict's, in library code and in a _test.go file, and a
// failing test in another package is reported beside them.
func TestGoCompileErrors(t *testing.T) {
	goBin := need(t, "go", "the Go toolchain (golang-go)")
	failing := "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 2) != 5 {\n\t\tt.Errorf(\"Add(2, 2) = %d, want 5\", Add(2, 2))\n\t}\n}\n"
	tests := []struct {
		name, file, code, compiler, verdict string
	}{
		{"library", "hash/hash.go", "package hash\n\nfunc Sum(b []byte) int {\n\treturn len(b) + undefinedThing\n}\n",
			"hash/hash.go:4:18: undefined: undefinedThing",
			"BUILD FAILED: 1 error: hash/hash.go:4:18: undefined: undefinedThing; and TESTS FAILED: 1 of 1 failed"},
		{"test file", "hash/hash_test.go", "package hash\n\nimport \"testing\"\n\nfunc TestSum(t *testing.T) { _ = Sum(nope) }\n",
			"hash/hash_test.go:5:38: undefined: nope",
			"BUILD FAILED: 1 error: hash/hash_test.go:5:38: undefined: nope; and TESTS FAILED: 1 of 1 failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{
				"go.mod":            "module example.com/e2e\n\ngo 1.24\n",
				"calc/calc.go":      "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
				"calc/calc_test.go": failing,
				"hash/hash.go":      "package hash\n\nfunc Sum(b []byte) int { return len(b) }\n",
				"hash/hash_test.go": "package hash\n\nimport \"testing\"\n\nfunc TestSum(t *testing.T) { _ = Sum(nil) }\n",
			}
			files[tt.file] = tt.code
			dir := nativeprojects.Write(t, files)
			code, out := callTest(t, dir)
			if code != 1 || !strings.HasPrefix(out, tt.verdict+"\n") || strings.Count(out, tt.compiler) < 2 || !strings.Contains(out, "1 error, ") {
				t.Errorf("triage call test: exit %d\n%s", code, out)
			}
			code, out = filterLog(t, dir, goBin, "test", "-count=1", "-json", "./...")
			if code != 1 || !strings.HasPrefix(out, tt.verdict+"\n") || !strings.Contains(out, "\n"+tt.compiler+"\n") {
				t.Errorf("go test -json | triage filter: exit %d\n%s", code, out)
			}
		})
	}
}

// TestCargoTestCutShort: process::exit(0) inside a Rust test ends its test
// binary with success, and cargo goes on to the next.
func TestCargoTestCutShort(t *testing.T) {
	cargo := need(t, "cargo", "rustup (https://rustup.rs) or the cargo package")
	dir := nativeprojects.Write(t, map[string]string{
		"Cargo.toml":     "[package]\nname = \"cutshort\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/lib.rs":     "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn a_adds() { assert_eq!(super::add(1, 2), 3); }\n    #[test]\n    fn b_mid() { std::process::exit(0) }\n    #[test]\n    fn c_after() {}\n}\n",
		"tests/integ.rs": "#[test]\nfn integ_ok() { assert_eq!(cutshort::add(1, 1), 2); }\n",
	})
	if code, out := callTest(t, dir); code != 1 || !strings.HasPrefix(out, "TESTS FAILED: ") || !strings.Contains(out, "unittests src/lib.rs") {
		t.Errorf("triage call test: exit %d\n%s", code, out)
	}
	const want = "TESTS FAILED: the run ended before tests::b_mid finished (unittests src/lib.rs: exit 0)"
	if code, out := filterLog(t, dir, cargo, "test", "--offline", "--", "--test-threads=1"); code != 1 || !strings.HasPrefix(out, want) {
		t.Errorf("cargo test | triage filter: exit %d\n%s", code, out)
	}
}

// TestCTestCutShort: a test that kills ctest leaves a "Start" with no
// result and no summary.
func TestCTestCutShort(t *testing.T) {
	need(t, "cmake", "cmake")
	ctest := need(t, "ctest", "cmake")
	need(t, "cc", "gcc")
	dir := nativeprojects.Write(t, map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(cutshort C)\nenable_testing()\n" +
			"add_executable(t_ok ok.c)\nadd_executable(t_killer killer.c)\n" +
			"add_test(NAME first COMMAND t_ok)\nadd_test(NAME killer COMMAND t_killer)\nadd_test(NAME after COMMAND t_ok)\n",
		"ok.c":     "int main(void) { return 0; }\n",
		"killer.c": "#include <signal.h>\n#include <unistd.h>\nint main(void) { kill(getppid(), SIGKILL); sleep(1); return 0; }\n",
	})
	code, out := callTest(t, dir)
	if verdict, _, _ := strings.Cut(out, "\n"); code != 1 || !strings.Contains(verdict, "killer") {
		t.Errorf("triage call test: exit %d\n%s", code, out)
	}
	// call test configured and built into triage's own build directory of
	// the default configuration; run ctest there again.
	const want = "TESTS FAILED: the run ended before killer finished (ctest: the output ended); 1 passed"
	if code, out := filterLog(t, filepath.Join(dir, ".triage", "build", "debug"), ctest); code != 1 || !strings.HasPrefix(out, want) {
		t.Errorf("ctest | triage filter: exit %d\n%s", code, out)
	}
}
