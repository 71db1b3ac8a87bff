package testreport

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRealFrameworks builds the test programs of testdata/frameworks with
// the frameworks this machine has (scripts/install-deps.sh installs them:
// GoogleTest, Catch2 v2 and doctest from Debian, Perl's prove, node) and
// reads their output as it is today: a failing run, and a run that ends
// in a test. The recorded outputs are read in tap_test.go, gtest_test.go,
// catch2_test.go and doctest_test.go; this catches a framework whose
// output changed since. A missing framework skips, and fails in CI.
func TestRealFrameworks(t *testing.T) {
	t.Run("gtest", func(t *testing.T) {
		t.Parallel()
		needFile(t, "/usr/include/gtest/gtest.h")
		dir := copyFrameworkSrc(t, "gtest")
		runIn(t, dir, "g++", "-g", "-o", "math_test", "math_test.cc", "-lgtest", "-lgtest_main", "-pthread")
		rep := parseRun(t, FormatGTest, dir, "./math_test", "--gtest_filter=Math.*:Later.*")
		checkReal(t, rep, Failed, Totals{Total: 4, Passed: 2, Failed: 1, Skipped: 1}, "Math.Fails", "math_test.cc", 9)
		rep = parseRun(t, FormatGTest, dir, "sh", "-c", "./math_test --gtest_filter=Math.Adds:Crash.Segv:Later.*; exit $?")
		checkReal(t, rep, Crashed, Totals{Total: 2, Passed: 1, Crashed: 1}, "Crash.Segv", "", 0)
		rep = parseRun(t, FormatGTest, dir, "./math_test", "--gtest_filter=Math.Adds:Crash.ExitZero:Later.*")
		checkReal(t, rep, Errored, Totals{Total: 2, Passed: 1, Errored: 1}, "Crash.ExitZero", "", 0)
		checkProgram(t, dir, "math_test", "GoogleTest", nil, "", 0) // programsign_test.go
	})
	t.Run("catch2", func(t *testing.T) {
		t.Parallel()
		needFile(t, "/usr/include/catch2/catch.hpp")
		dir := copyFrameworkSrc(t, "catch2")
		runIn(t, dir, "g++", "-g", "-DCATCH_HEADER=<catch2/catch.hpp>", "-o", "t2", "tests.cpp", "main2.cpp")
		rep := parseRun(t, FormatCatch2, dir, "./t2", "[math],[later]")
		checkReal(t, rep, Failed, Totals{Total: 4, Passed: 2, Failed: 2}, "fails an assertion", "tests.cpp", 15)
		rep = parseRun(t, FormatCatch2, dir, "./t2", "adds numbers,segfaults,runs last")
		checkReal(t, rep, Crashed, Totals{Total: 2, Passed: 1, Crashed: 1}, "segfaults", "tests.cpp", 24)
		rep = parseRun(t, FormatCatch2, dir, "./t2", "fails an assertion,exits zero,runs last")
		checkReal(t, rep, Failed, Totals{Total: 1, Failed: 1}, "fails an assertion", "tests.cpp", 15)
		checkProgram(t, dir, "t2", "Catch2", []string{"adds numbers,exits zero,runs last"}, "exits zero", 31)
	})
	t.Run("doctest", func(t *testing.T) {
		t.Parallel()
		needFile(t, "/usr/include/doctest/doctest.h")
		dir := copyFrameworkSrc(t, "doctest")
		runIn(t, dir, "g++", "-g", "-o", "t", "tests.cpp")
		rep := parseRun(t, FormatDoctest, dir, "./t", "-tc=adds numbers,fails an assertion,subcases,skipped,runs last")
		checkReal(t, rep, Failed, Totals{Total: 4, Passed: 2, Failed: 2}, "fails an assertion", "tests.cpp", 14)
		rep = parseRun(t, FormatDoctest, dir, "./t", "-tc=adds numbers,segfaults,runs last")
		checkReal(t, rep, Crashed, Totals{Total: 2, Passed: 1, Crashed: 1}, "segfaults", "tests.cpp", 25)
		rep = parseRun(t, FormatDoctest, dir, "./t", "-tc=fails an assertion,exits zero,runs last")
		checkReal(t, rep, Failed, Totals{Total: 1, Failed: 1}, "fails an assertion", "tests.cpp", 14)
		checkProgram(t, dir, "t", "doctest", []string{"-tc=adds numbers,exits zero,runs last"}, "exits zero", 32)
	})
	t.Run("prove", func(t *testing.T) {
		t.Parallel()
		needTool(t, "prove")
		needTool(t, "gcc")
		dir := copyFrameworkSrc(t, "tap")
		for _, c := range []string{"segv", "short", "noplan"} {
			runIn(t, dir, "gcc", "-g", "-o", "crash/"+c, "crash/"+c+".c")
		}
		rep := parseRun(t, FormatTAP, dir, "prove", "-v", "t/01-pass.t", "t/02-fail.t")
		checkReal(t, rep, Failed, Totals{Total: 9, Passed: 6, Failed: 2, Skipped: 1}, "two and two", "t/02-fail.t", 4)
		rep = parseRun(t, FormatTAP, dir, "prove", "-v", "t/01-pass.t", "t/03-segv.t", "t/04-short.t", "t/07-noplan.t")
		checkReal(t, rep, Crashed, Totals{Total: 11, Passed: 10, Crashed: 1}, "test 3", "", 0)
		if len(rep.CutShort) != 3 {
			t.Errorf("cut short %+v, want t/03-segv.t, t/04-short.t, t/07-noplan.t", rep.CutShort)
		}
	})
	t.Run("node", func(t *testing.T) {
		t.Parallel()
		needTool(t, "node")
		dir := copyFrameworkSrc(t, "tap")
		rep := parseRun(t, FormatTAP, dir, "node", "--test", "--test-reporter=tap", "math.test.mjs")
		checkReal(t, rep, Failed, Totals{Total: 6, Passed: 3, Failed: 2, Skipped: 1}, "fails an assertion", filepath.Join(dir, "math.test.mjs"), 5)
	})
}

// needFile skips without path, and fails in CI (where install-deps.sh ran).
func needFile(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s: %v (scripts/install-deps.sh installs it)", path, err)
		}
		t.Skipf("%s: %v", path, err)
	}
}

func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not found (scripts/install-deps.sh installs it)", name)
		}
		t.Skipf("%s not found", name)
	}
}

// copyFrameworkSrc copies testdata/frameworks/NAME/src into a directory of
// the test's own.
func copyFrameworkSrc(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "frameworks", name, "src"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runIn runs a build command in dir.
func runIn(t *testing.T, dir string, argv ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
}

// parseRun runs a test program in dir, without core dumps, and reads its
// output (stdout and stderr) in format; its exit status is the program's
// business.
func parseRun(t *testing.T, format, dir string, argv ...string) *Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sh := append([]string{"-c", `ulimit -c 0; exec "$@"`, "sh"}, argv...)
	cmd := exec.CommandContext(ctx, "sh", sh...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s: %v", strings.Join(argv, " "), ctx.Err())
	}
	if got := DetectFormat(out.Bytes()); got != format {
		t.Errorf("%s: detected %q, want %q\n%s", strings.Join(argv, " "), got, format, out.Bytes())
	}
	rep, err := Parse(format, &out)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// checkReal checks a live run's status, totals and one named case.
func checkReal(t *testing.T, rep *Report, st Status, totals Totals, name, file string, line int) {
	t.Helper()
	if rep.Status != st || rep.Totals != totals {
		t.Errorf("status %s, totals %+v; want %s, %+v (cases %+v)", rep.Status, rep.Totals, st, totals, rep.Cases)
	}
	for _, c := range rep.Cases {
		if c.Name == name {
			if c.File != file || c.Line != line {
				t.Errorf("%s at %s:%d, want %s:%d", name, c.File, c.Line, file, line)
			}
			return
		}
	}
	t.Errorf("no case %q in %+v", name, rep.Cases)
}
