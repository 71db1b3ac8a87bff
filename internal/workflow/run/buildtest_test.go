package run_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/workflow/run"
)

// needTool skips when a toolchain is missing, naming the package to install.
func needTool(t *testing.T, name, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s not found: install %s", name, pkg)
	}
}

// buildTestOutput decodes the structured output; logfilter.Kind encodes as
// a name and has no decoder, so diagnostics are read as plain records.
type buildTestOutput struct {
	run.BuildTestOutput
	Diagnostics []struct {
		Kind, File, Message string
		Line                int
	} `json:"diagnostics"`
}

var goModule = map[string]string{
	"go.mod":               "module example.com/demo\n\ngo 1.22\n",
	"pass/pass_test.go":    "package pass\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) {}\n",
	"fail/fail_test.go":    "package fail\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) {}\n\nfunc TestWrong(t *testing.T) {\n\tif got := 2 + 2; got != 5 {\n\t\tt.Errorf(\"2 + 2 = %d, want 5\", got)\n\t}\n}\n",
	"panics/panic_test.go": "package panics\n\nimport \"testing\"\n\nfunc TestIndex(t *testing.T) {\n\tvar s []int\n\t_ = s[3]\n}\n",
	"exits/exit_test.go":   "package exits\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestExitEarly(t *testing.T) { os.Exit(0) }\n\nfunc TestNeverRuns(t *testing.T) {}\n",
}

func TestGoTests(t *testing.T) {
	needTool(t, "go", "golang-go")
	c := mcptest.Connect(t, nil)
	dir := nativeprojects.Write(t, goModule)

	r := c.Call("test", map[string]any{"project_dir": dir})
	if r.IsError || r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "CRASHED: test binary panicked in example.com/demo/exits.TestExitEarly at exit_test.go:8 while running ") {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	var out buildTestOutput
	r.Decode(t, &out)
	if out.Tests == nil {
		t.Fatalf("no tests in the output: %+v", out)
	}
	// The panic's first project frame, with its source (no core: the trace).
	if site := "  >    8 | func TestExitEarly(t *testing.T) { os.Exit(0) }\n"; out.Crash == nil || out.Crash.Site == nil || !strings.Contains(r.Text, site) {
		t.Errorf("no crash site %q:\n%s", site, r.Text)
	}
	status := map[string]string{}
	for _, tc := range out.Tests.Cases {
		status[tc.Name] = string(tc.Status)
	}
	// The failing test failed, the panicking one crashed, and the one that
	// called os.Exit(0) early did not pass.
	want := map[string]string{"TestWrong": "failed", "TestIndex": "crashed"}
	for name, st := range want {
		if status[name] != st {
			t.Errorf("%s: status %q, want %q (all: %v)", name, status[name], st, status)
		}
	}
	if st := status["TestExitEarly"]; st == "passed" || st == "" {
		t.Errorf("TestExitEarly: status %q; an early os.Exit(0) must not pass", st)
	}
	if status["TestNeverRuns"] == "passed" {
		t.Error("TestNeverRuns passed, but os.Exit ended its binary first")
	}
	if !strings.Contains(r.Text, "fail_test.go:9") || !strings.Contains(r.Text, "2 + 2 = 4, want 5") {
		t.Errorf("the failure's message and location are missing:\n%s", r.Text)
	}
	if out.OutputID == "" || out.TotalLines == 0 {
		t.Errorf("no stored log: %+v", out.Captured)
	}
	// The raw log is in the store, whole.
	page := c.Call("output_search", map[string]any{"output_id": out.OutputID, "pattern": `"Action":"pass"`})
	if page.IsError || !strings.Contains(page.Text, "TestOK") {
		t.Errorf("raw log not searchable:\n%s", page.Text)
	}

	// Only the passing package: a success, with counts.
	r = c.Call("test", map[string]any{"project_dir": dir, "targets": []string{"./pass"}})
	if r.Outcome != "ok" || r.FirstLine() != "TESTS PASSED: 1 passed" {
		t.Errorf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	// A filter that selects nothing is said so, never a success.
	r = c.Call("test", map[string]any{"project_dir": dir, "run": []string{"TestNoSuchThing"}})
	if r.Outcome != "failed" || r.FirstLine() != "NO TESTS RAN: filter -run=TestNoSuchThing matched nothing" {
		t.Errorf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
}

func TestGoBuildErrors(t *testing.T) {
	needTool(t, "go", "golang-go")
	c := mcptest.Connect(t, nil)
	dir := nativeprojects.Write(t, map[string]string{
		"go.mod":  "module example.com/broken\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() {\n\tx := 1\n\tundefinedCall()\n}\n",
	})
	r := c.Call("build", map[string]any{"project_dir": dir})
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "BUILD FAILED: ") {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	var out buildTestOutput
	r.Decode(t, &out)
	var lines []int
	for _, d := range out.Diagnostics {
		if d.Kind == "error" && strings.HasSuffix(d.File, "main.go") {
			lines = append(lines, d.Line)
		}
	}
	if len(lines) < 2 {
		t.Errorf("want the two errors of main.go with their lines, got %+v", out.Diagnostics)
	}
}

func TestCMakeCompileErrorThenSegfaultingTest(t *testing.T) {
	needTool(t, "cmake", "cmake")
	needTool(t, "ctest", "cmake")
	needTool(t, "cc", "gcc")
	c := mcptest.Connect(t, nil)
	dir := nativeprojects.Write(t, map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(demo C)\nenable_testing()\n" +
			"set(CMAKE_C_FLAGS \"-g -O0\")\nadd_executable(adds adds.c)\nadd_executable(crashes crashes.c)\n" +
			"add_test(NAME adds COMMAND adds)\nadd_test(NAME crashes COMMAND crashes)\n",
		"adds.c":    "int main(void) { return 1 + 1 == 2 ? 0 : 1 }\n",
		"crashes.c": "#include <stddef.h>\nstatic void crash_here(int *p) { *p = 42; }\nint main(void) { crash_here(NULL); return 0; }\n",
	})
	r := c.Call("test", map[string]any{"project_dir": dir})
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "BUILD FAILED: 1 error (build step; the tests did not run): adds.c:1:43: expected") {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	if !strings.Contains(r.Text, "adds.c:1:") {
		t.Errorf("the error's location is missing:\n%s", r.Text)
	}
	var out buildTestOutput
	r.Decode(t, &out)
	if n := len(out.Steps); n != 3 || !out.Steps[1].Ran || out.Steps[2].Ran {
		t.Errorf("steps: %+v; want configure and build run, test not run", out.Steps)
	}

	// Fixed: the build succeeds, and the crashing test is a crash, with its
	// core and backtrace, naming the test.
	if err := os.WriteFile(filepath.Join(dir, "adds.c"), []byte("int main(void) { return 1 + 1 == 2 ? 0 : 1; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = c.Call("test", map[string]any{"project_dir": dir})
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "CRASHED: test binary SIGSEGV") || !strings.HasSuffix(r.FirstLine(), "while running crashes") {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	out = buildTestOutput{}
	r.Decode(t, &out)
	if out.Crash == nil || out.Crash.Test != "crashes" {
		t.Fatalf("crash = %+v", out.Crash)
	}
	if out.Crash.Core == "" {
		t.Skipf("no core dump of the crashed test (%s): cores are not written here", out.Crash.NoCore)
	}
	if len(out.Crash.Backtrace) == 0 || out.Crash.Backtrace[0].Function != "crash_here" {
		t.Errorf("backtrace %+v, want crash_here on top", out.Crash.Backtrace)
	}
	if !strings.Contains(r.FirstLine(), "in crash_here at crashes.c:2") {
		t.Errorf("verdict %q does not name the crashing frame", r.FirstLine())
	}
	if !strings.Contains(r.Text, `dump_open {"core":"`+out.Crash.Core) {
		t.Errorf("no dump_open hint:\n%s", r.Text)
	}
}

func TestCargoTests(t *testing.T) {
	needTool(t, "cargo", "cargo")
	c := mcptest.Connect(t, nil)
	dir := nativeprojects.Write(t, map[string]string{
		"Cargo.toml": "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n" +
			"    #[test]\n    fn adds() { assert_eq!(add(1, 2), 3); }\n" +
			"    #[test]\n    fn adds_wrong() { assert_eq!(add(2, 2), 5); }\n" +
			"    #[test]\n    fn panics() { let v: Vec<i32> = Vec::new(); let _ = v[3]; }\n}\n",
	})
	r := c.Call("test", map[string]any{"project_dir": dir, "env": map[string]any{"CARGO_TARGET_DIR": filepath.Join(dir, "target")}})
	if r.Outcome != "failed" || r.FirstLine() != "TESTS FAILED: 2 of 3 failed" {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	for _, want := range []string{"tests::adds_wrong", "tests::panics", "index out of bounds"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, r.Text)
		}
	}
	r = c.Call("test", map[string]any{"project_dir": dir, "run": []string{"no_such_test"}})
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "NO TESTS RAN: filter no_such_test matched nothing") {
		t.Errorf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
}

func TestMakeLinkerError(t *testing.T) {
	needTool(t, "make", "make")
	needTool(t, "cc", "gcc")
	c := mcptest.Connect(t, nil)
	dir := nativeprojects.Write(t, map[string]string{
		"Makefile": "app: main.o util.o\n\t$(CC) -o app main.o util.o\n%.o: %.c\n\t$(CC) -c -o $@ $<\n",
		"main.c":   "int helper(int);\nint missing_function(int);\nint main(void) { return helper(1) + missing_function(2); }\n",
		"util.c":   "int helper(int x) { return x - 1; }\n",
	})
	r := c.Call("build", map[string]any{"project_dir": dir})
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "BUILD FAILED: ") {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	if !strings.Contains(r.Text, "undefined reference to `missing_function'") {
		t.Errorf("the linker error is missing:\n%s", r.Text)
	}
	// Fixed, it builds.
	os.WriteFile(filepath.Join(dir, "util.c"), []byte("int helper(int x) { return x - 1; }\nint missing_function(int x) { return x; }\n"), 0o644)
	r = c.Call("build", map[string]any{"project_dir": dir})
	if r.Outcome != "ok" || r.FirstLine() != "BUILD SUCCEEDED (0 warnings)" {
		t.Errorf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
}

func TestBuildTestBadInput(t *testing.T) {
	c := mcptest.Connect(t, nil)
	empty := t.TempDir()
	goDir := nativeprojects.Write(t, map[string]string{"go.mod": "module example.com/x\n\ngo 1.22\n"})
	tests := []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"build", map[string]any{}, []string{"project_dir", "session_set_defaults"}},
		{"build", map[string]any{"project_dir": empty}, []string{"no project found", "go.mod", "Cargo.toml", "CMakeLists.txt", "Makefile"}},
		{"test", map[string]any{"project_dir": empty, "toolchain": "bazel"}, []string{`unknown toolchain "bazel"`, "cargo"}},
		{"test", map[string]any{"project_dir": goDir, "command": "make -j4 check"}, []string{"argv array, not a string", `["make","-j4","check"]`}},
		{"test", map[string]any{"project_dir": goDir, "command": "make check | tee log"}, []string{"argv array, not a string", "split it"}},
		{"test", map[string]any{"project_dir": goDir, "command": []any{"make", 3}}, []string{"command[1]"}},
		{"test", map[string]any{"project_dir": goDir, "level": "loud"}, []string{"minimal, standard or verbose"}},
		{"test", map[string]any{"project_dir": goDir, "run": []string{"-v"}}, []string{"would be read as an option"}},
		{"build", map[string]any{"project_dir": "/no/such/dir"}, []string{"/no/such/dir"}},
		{"build", map[string]any{"project_dir": goDir, "command": []string{"/no/such/compiler"}}, []string{"/no/such/compiler"}},
	}
	for _, tt := range tests {
		r := c.Call(tt.tool, tt.args)
		if !r.IsError || r.Outcome != "usage_error" {
			t.Errorf("%s %v: isError %v outcome %q, want a usage error\n%s", tt.tool, tt.args, r.IsError, r.Outcome, r.Text)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(r.Text, w) {
				t.Errorf("%s %v: %q lacks %q", tt.tool, tt.args, r.Text, w)
			}
		}
	}
}

func TestExplicitCommandSilentFailure(t *testing.T) {
	c := mcptest.Connect(t, nil)
	dir := t.TempDir()
	// A test command that fails without saying which test: never a pass.
	r := c.Call("test", map[string]any{"project_dir": dir, "command": []string{"sh", "-c", "echo running; exit 2"}})
	if r.Outcome != "failed" || r.FirstLine() != "FAILED (exit 2) but no failing test was reported — see output" {
		t.Errorf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	// Session default test_command is used when no command is given.
	c.Call("session_set_defaults", map[string]any{"project_dir": dir, "test_command": []string{"sh", "-c", "echo '--- FAIL: TestX (0.00s)'; exit 1"}})
	r = c.Call("test", map[string]any{})
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "FAILED (exit 1)") && !strings.HasPrefix(r.FirstLine(), "TESTS FAILED") {
		t.Errorf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
}
