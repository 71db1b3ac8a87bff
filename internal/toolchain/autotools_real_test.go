package toolchain

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// autotoolsProject is a checkout (no configure) whose make check runs
// t_ok (passes), t_fail (exits 1) and t_crash (a NULL dereference in deref
// at lib.c:2), and t_extra with --enable-extra.
func autotoolsProject() map[string]string {
	return map[string]string{
		"configure.ac": "AC_INIT([am], [1.0])\nAM_INIT_AUTOMAKE([foreign])\nAC_PROG_CC\n" +
			"AC_ARG_ENABLE([extra], [AS_HELP_STRING([--enable-extra], [one more test])])\n" +
			"AM_CONDITIONAL([EXTRA], [test \"x$enable_extra\" = xyes])\nAC_CONFIG_FILES([Makefile])\nAC_OUTPUT\n",
		"Makefile.am": "check_PROGRAMS = t_ok t_fail t_crash\nif EXTRA\ncheck_PROGRAMS += t_extra\nt_extra_SOURCES = t_ok.c\nendif\n" +
			"TESTS = $(check_PROGRAMS)\nt_crash_SOURCES = t_crash.c lib.c\n",
		"t_ok.c":    "int main(void) { return 0; }\n",
		"t_fail.c":  "#include <stdio.h>\nint main(void) { puts(\"t_fail.c:2: expected 1, got 2\"); return 1; }\n",
		"t_crash.c": "int deref(int *p);\nint main(void) { return deref(0); }\n",
		"lib.c":     "int deref(int *p) {\n  return *p;\n}\n",
	}
}

// runSteps runs the steps in order as the pipeline does, stopping at the
// first that fails, and returns the name of the step that failed ("" when
// none) and the last output.
func runSteps(t *testing.T, steps []Step) (string, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out bytes.Buffer
	for _, s := range steps {
		out.Reset()
		res, err := spawn.Run(ctx, spawn.Spec{Argv: s.Argv, Dir: s.Dir, Env: s.Env, Combined: &out, MergeStderr: true})
		if err != nil {
			t.Fatalf("%s: %v", s.CommandLine(), err)
		}
		if !res.Success() {
			return s.Name, out.Bytes()
		}
	}
	return "", out.Bytes()
}

// autotoolsReport parses a make check step's output as the pipeline does,
// the failed tests' own logs read from the step's directory.
func autotoolsReport(t *testing.T, test Step, out []byte) *testreport.Report {
	t.Helper()
	rep, err := testreport.Parse(test.Format, bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	rep.ReadTestLogs(test.Dir, nil, 10, nil)
	return rep
}

func stepNames(steps []Step) []string {
	var names []string
	for _, s := range steps {
		names = append(names, s.Name)
	}
	return names
}

// TestRealAutotools bootstraps, configures out of tree, builds and tests a
// checkout with the real autoconf, automake and make, through the planned
// steps: the bootstrap and configure run only when needed, the build has
// the debug flags and leaves the source tree unconfigured, the automake
// report (with each failed test's own log, beside it in the build
// directory) names the passing, failing and crashed tests, configure_args
// configure a directory of their own, a compile error in a test program
// fails the build step, and a tree configured in-source is built there.
func TestRealAutotools(t *testing.T) {
	nativeprojects.Need(t, "autoreconf", "automake", "make", "cc")
	dir := writeFiles(t, autotoolsProject())
	if tc, err := Detect(dir); err != nil || tc != Autotools {
		t.Fatalf("Detect = %q, %v", tc, err)
	}

	steps, err := TestPlan(Autotools, dir, Options{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := stepNames(steps), []string{StepBootstrap, StepMkdir, StepConfigure, StepBuild, StepTest}; !slices.Equal(got, want) {
		t.Fatalf("steps %q, want %q", got, want)
	}
	failed, out := runSteps(t, steps)
	if failed != StepTest {
		t.Fatalf("failed step %q, want the tests'\n%s", failed, out)
	}
	test := steps[len(steps)-1]
	bdir := filepath.Join(dir, ".triage/build/autotools-debug")
	if test.Dir != bdir {
		t.Errorf("tested in %s, want %s", test.Dir, bdir)
	}
	rep := autotoolsReport(t, test, out)
	want := map[string]testreport.Status{"t_ok": testreport.Passed, "t_fail": testreport.Failed, "t_crash": testreport.Crashed}
	if got := caseNames(rep); !equalStatus(got, want) {
		t.Errorf("cases %v, want %v\n%s", got, want, out)
	}
	for _, c := range rep.Cases {
		if c.Name == "t_crash" && (c.LogFile != filepath.Join(bdir, "t_crash.log") || !strings.Contains(c.Message, "SIGSEGV")) {
			t.Errorf("t_crash: log %s, message %q", c.LogFile, c.Message)
		}
	}
	makefile, err := os.ReadFile(filepath.Join(bdir, "Makefile"))
	if err != nil || !bytes.Contains(makefile, []byte("\nCFLAGS = -g -O0\n")) {
		t.Errorf("the build directory's Makefile has no CFLAGS = -g -O0 (%v)", err)
	}
	for _, f := range []string{"configure", "Makefile.in"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the bootstrap left no %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "config.status")); err == nil {
		t.Errorf("the source tree was configured in-source")
	}

	// Configured already: make alone, which keeps the directory current.
	steps, err = TestPlan(Autotools, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := stepNames(steps), []string{StepBuild, StepTest}; !slices.Equal(got, want) {
		t.Errorf("second plan's steps %q, want %q", got, want)
	}

	// configure_args: a directory of their own, configured with them.
	steps, err = TestPlan(Autotools, dir, Options{ConfigureArgs: []string{"--enable-extra"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := stepNames(steps), []string{StepMkdir, StepConfigure, StepBuild, StepTest}; !slices.Equal(got, want) {
		t.Errorf("configure_args plan's steps %q, want %q", got, want)
	}
	failed, out = runSteps(t, steps)
	if rep := autotoolsReport(t, steps[len(steps)-1], out); failed != StepTest || caseNames(rep)["t_extra"] != testreport.Passed || steps[len(steps)-1].Dir == bdir {
		t.Errorf("with --enable-extra: failed step %q, cases %v, in %s\n%s", failed, caseNames(rep), steps[len(steps)-1].Dir, out)
	}

	// A test program that does not compile fails the build step.
	if err := os.WriteFile(filepath.Join(dir, "t_ok.c"), []byte("int main(void) {\n  return undeclared;\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	steps, err = TestPlan(Autotools, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	failed, out = runSteps(t, steps)
	if failed != StepBuild || !bytes.Contains(out, []byte(filepath.Join(dir, "t_ok.c")+":2:")) {
		t.Errorf("a test program's compile error: failed step %q, want build\n%s", failed, out)
	}

	// Configured in-source: built there, as configured.
	if err := os.WriteFile(filepath.Join(dir, "t_ok.c"), []byte(autotoolsProject()["t_ok.c"]), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("./configure")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("./configure: %v\n%s", err, b)
	}
	steps, err = TestPlan(Autotools, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if test := steps[len(steps)-1]; len(steps) != 2 || test.Dir != dir || test.Format != testreport.FormatAutomake {
		t.Fatalf("in-source steps %v", stepLines(steps, dir))
	}
	failed, out = runSteps(t, steps)
	if rep := autotoolsReport(t, steps[len(steps)-1], out); failed != StepTest || !equalStatus(caseNames(rep), want) {
		t.Errorf("in-source: failed step %q, cases %v\n%s", failed, caseNames(rep), out)
	}
}
