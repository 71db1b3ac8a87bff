package pipeline

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/toolchain"
)

// runPrinted runs a test step that prints lines and exits with exit (a
// negative exit: kills itself with that signal), through the real pipeline
// (filter, parser in format, verdict).
func runPrinted(t *testing.T, format string, exit int, lines ...string) *Result {
	t.Helper()
	end := "exit " + strconv.Itoa(exit)
	if exit < 0 {
		end = "kill -" + strconv.Itoa(-exit) + " $$"
	}
	step := toolchain.Step{Name: toolchain.StepTest, Format: format, Dir: t.TempDir(), NoHangStacks: true,
		Argv: append([]string{"sh", "-c", `printf '%s\n' "$@"; ` + end, "sh"}, lines...)}
	res, err := Run(context.Background(), Request{Kind: KindTest, Steps: []toolchain.Step{step}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// automakeSummary is automake's summary of one passed and one failed test.
var automakeSummary = []string{"# TOTAL: 2", "# PASS:  1", "# SKIP:  0", "# XFAIL: 0", "# FAIL:  1", "# XPASS: 0", "# ERROR: 0",
	"make: *** [Makefile:7: check-TESTS] Error 1"}

// TestBuildStoppedTestsRule: a test step whose output holds compiler errors
// and no test result is a build failure, whatever reads its output (no
// format, automake's); tests that ran, a crash, an exit 0, or errors that
// are no compiler's keep their own verdicts.
func TestBuildStoppedTestsRule(t *testing.T) {
	const (
		ccErr   = "lib.c:4:5: error: 'x' undeclared (first use in this function)"
		xsErr   = "Level.xs:18:9: error: 'x' undeclared (first use in this function)"
		makeErr = "make: *** [Makefile:7: lib.o] Error 1"
		stopped = "BUILD FAILED: 1 error (test step; no test results recognised): "
	)
	for _, tt := range []struct {
		name, format string
		exit         int
		lines        []string
		status       Status
		line         string // the verdict, or its start when it ends in "…"
	}{
		{"make test", "", 2, []string{ccErr, makeErr}, Failed, stopped + "lib.c:4:5: 'x' undeclared (first use in this function)"},
		// automake's reader finds no test in make check's output.
		{"make check", testreport.FormatAutomake, 2, []string{ccErr, makeErr}, Failed, stopped + "lib.c:4:5: 'x' undeclared (first use in this function)"},
		// gcc's error in a file of no known language (xsubpp's #line).
		{"perl make test", "", 2, []string{xsErr, makeErr}, Failed, stopped + "Level.xs:18:9: 'x' undeclared (first use in this function)"},
		// Tests ran too: theirs is the verdict.
		{"tests ran", testreport.FormatAutomake, 2, append([]string{ccErr, "PASS: test_ok", "FAIL: test_fail"}, automakeSummary...), Failed, "TESTS FAILED: 1 of 2 failed"},
		// A test's own message with a line and no column is no compiler's.
		{"test's error", "", 1, []string{"check.pl:3: error: expected 1, got 2"}, Failed,
			"TESTS FAILED (exit 1): 1 error in the output; no test results recognised"},
		{"crash", "", -11, []string{ccErr}, Crashed, "CRASHED…"},
		// An error the step went past is not one that stopped it.
		{"exit 0", "", 0, []string{ccErr}, "", ""},
	} {
		res := runPrinted(t, tt.format, tt.exit, tt.lines...)
		want, prefix := strings.CutSuffix(tt.line, "…")
		switch {
		case tt.status == "" && strings.HasPrefix(res.Line, "BUILD FAILED"):
			t.Errorf("%s: %s %q, want no build failure", tt.name, res.Status, res.Line)
		case tt.status == "":
		case res.Status != tt.status || (prefix && !strings.HasPrefix(res.Line, want)) || (!prefix && res.Line != want):
			t.Errorf("%s: %s %q\n want %s %q", tt.name, res.Status, res.Line, tt.status, tt.line)
		}
	}
}

// TestMakeCheckCompileError: a plain Makefile whose check or test target
// builds its test program, then runs it (as Perl's make test does), with
// gcc failing on the program: the verdict names the compiler's error at
// its file and line, also when #line points it into a generated file's
// source (parse.y, as Level.xs).
func TestMakeCheckCompileError(t *testing.T) {
	nativeprojects.Need(t, "make", "cc")
	for _, tt := range []struct {
		target, src, at string
	}{
		{"check", "#include <stdio.h>\nint main(void) {\n  injected_undeclared_identifier = 1;\n  return 0;\n}\n", "t.c:3:"},
		{"test", "int main(void) {\n#line 7 \"parse.y\"\n  injected_undeclared_identifier = 1;\n  return 0;\n}\n", "parse.y:7:"},
	} {
		dir := nativeprojects.Write(t, map[string]string{
			"Makefile": "CFLAGS = -g -O0\n\n" + tt.target + ": t\n\t./t\n\nt: t.c\n\t$(CC) $(CFLAGS) -o $@ t.c\n",
			"t.c":      tt.src,
		})
		res := runPlan(t, "make", dir, 0)
		want := "BUILD FAILED: 1 error (test step; no test results recognised): " + tt.at
		if res.Status != Failed || !strings.HasPrefix(res.Line, want) || !strings.Contains(res.Line, "injected_undeclared_identifier") {
			t.Errorf("make %s: %s %q\n want %s %q…", tt.target, res.Status, res.Line, Failed, want)
		}
	}
}

// TestMakeCheckCompileErrorThenCrashOrHang: errors the step's make passed
// over ('-') do not make a crash or a timeout after them a build failure.
func TestMakeCheckCompileErrorThenCrashOrHang(t *testing.T) {
	nativeprojects.Need(t, "make", "cc")
	const bad = "int main(void) {\n  injected_undeclared_identifier = 1;\n  return 0;\n}\n"
	for _, tt := range []struct {
		run     string
		timeout time.Duration
		status  Status
		line    string
	}{
		{"./crasher", 0, Crashed, "CRASHED"},
		{"sleep 30", 2 * time.Second, TimedOut, "TIMED OUT"},
	} {
		dir := nativeprojects.Write(t, map[string]string{
			"Makefile": "CFLAGS = -g -O0\n\ncheck: crasher\n\t-$(CC) $(CFLAGS) -o bad bad.c\n\t" + tt.run + "\n\n" +
				"crasher: crasher.c\n\t$(CC) $(CFLAGS) -o $@ crasher.c\n",
			"bad.c":     bad,
			"crasher.c": "int main(void) {\n  volatile int *p = 0;\n  return *p;\n}\n",
		})
		res := runPlan(t, "make", dir, tt.timeout)
		if res.Status != tt.status || !strings.HasPrefix(res.Line, tt.line) {
			t.Errorf("%s: %s %q, want %s %q…", tt.run, res.Status, res.Line, tt.status, tt.line)
		}
	}
}

// TestAutomakeCheckCompileError: automake's make check builds every test
// program before it runs one; when gcc fails on one, the verdict is a
// build failure at its line, whether make check is the one step (the make
// toolchain, as for a tree configured in-source by hand) or follows a
// build step (autotools). Once the program builds with a warning and
// fails, the verdict is the test's.
func TestAutomakeCheckCompileError(t *testing.T) {
	nativeprojects.Need(t, "make", "cc", "autoreconf", "automake")
	dir := nativeprojects.Write(t, map[string]string{
		"configure.ac": "AC_INIT([am], [1.0])\nAM_INIT_AUTOMAKE([foreign])\nAC_PROG_CC\nAC_CONFIG_FILES([Makefile])\nAC_OUTPUT\n",
		"Makefile.am":  "AM_CFLAGS = -g -O0 -Wall\ncheck_PROGRAMS = test_ok test_fail\nTESTS = $(check_PROGRAMS)\n",
		"test_ok.c":    "int main(void) { return 0; }\n",
		"test_fail.c":  "int main(void) {\n  injected_undeclared_identifier = 1;\n  return 0;\n}\n",
	})
	for _, argv := range [][]string{{"autoreconf", "-i"}, {"./configure"}} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, out)
		}
	}
	for tc, where := range map[string]string{"make": "test step; no test results recognised", "autotools": "build step; the tests did not run"} {
		res := runPlan(t, tc, dir, 0)
		want := "BUILD FAILED: 1 error (" + where + "): test_fail.c:2:"
		if res.Status != Failed || !strings.HasPrefix(res.Line, want) {
			t.Errorf("%s: %s %q\n want %s %q…", tc, res.Status, res.Line, Failed, want)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "test_fail.c"), []byte("int main(void) {\n  int unused;\n  return 1;\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runPlan(t, "make", dir, 0)
	if res.Status != Failed || res.Line != "TESTS FAILED: 1 of 2 failed" || res.Log.Warnings == 0 {
		t.Errorf("a failed test and a warning: %s %q (%d warnings)", res.Status, res.Line, res.Log.Warnings)
	}
}

// runPlan runs the test plan of toolchain tc for the project in dir.
func runPlan(t *testing.T, tc, dir string, timeout time.Duration) *Result {
	t.Helper()
	steps, _, err := toolchain.Plan(toolchain.StepTest, nil, tc, dir, toolchain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range steps {
		steps[i].NoHangStacks = true
	}
	res, err := Run(context.Background(), Request{Kind: KindTest, Steps: steps, Timeout: timeout, ProjectDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
