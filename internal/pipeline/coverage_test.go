package pipeline

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/toolchain"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runCoverage plans and runs a coverage test run of dir with tc.
func runCoverage(t *testing.T, tc toolchain.Toolchain, dir string) (*Result, toolchain.Step) {
	t.Helper()
	steps, err := toolchain.TestPlan(tc, dir, toolchain.Options{Coverage: true, CoverageDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var raw strings.Builder
	res, err := Run(context.Background(), Request{Kind: KindTest, Steps: steps, Level: logfilter.Standard, ProjectDir: dir, Raw: &raw})
	if err != nil {
		t.Fatal(err)
	}
	if res.Coverage == nil {
		t.Fatalf("no coverage: %s\n%s", res.CoverageError, raw.String())
	}
	return res, steps[len(steps)-1]
}

var goModule = map[string]string{
	"go.mod": "module example.com/cov\n\ngo 1.22\n",
	"calc/calc.go": `package calc

func Abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func Unused() int { return 42 }
`,
	"calc/calc_test.go": `package calc

import "testing"

func TestAbs(t *testing.T) {
	if Abs(3) != 3 {
		t.Fatal("abs")
	}
}

func TestFails(t *testing.T) { t.Fatal("boom") }
`,
	"other/other.go": "package other\n\nfunc Twice(x int) int { return 2 * x }\n",
}

// A Go coverage run with a failing test: its statement figure is the one
// go tool cover -func gives for the same profile, and the lines that did
// not run are named.
func TestGoCoverageMatchesGoToolCover(t *testing.T) {
	dir := writeFiles(t, goModule)
	res, step := runCoverage(t, toolchain.Go, dir)
	if res.Status != Failed {
		t.Errorf("status %s %q, want failed (TestFails)", res.Status, res.Line)
	}
	cmd := exec.Command("go", "tool", "cover", "-func="+step.Coverage.Profile)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go tool cover: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`total:\s+\(statements\)\s+([0-9.]+)%`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no total in:\n%s", out)
	}
	rep := res.Coverage
	if got := strconv.FormatFloat(rep.Totals.StatementPercent(), 'f', 1, 64); got != string(m[1]) {
		t.Errorf("statements %s%% (%d of %d), go tool cover says %s%%", got, rep.Totals.CoveredStatements, rep.Totals.Statements, m[1])
	}
	if rep.Totals.CoveredStatements != 2 || rep.Totals.Statements != 5 || rep.Totals.Files != 2 {
		t.Errorf("totals %+v, want 2 of 5 statements in 2 files", rep.Totals)
	}
	calc := fileNamed(t, rep, "calc/calc.go")
	if want := []coverage.Range{{From: 5, To: 6}, {From: 10, To: 10}}; !equalRanges(calc.Uncovered, want) {
		t.Errorf("calc.go uncovered %v, want %v", calc.Uncovered, want)
	}
}

func fileNamed(t *testing.T, rep *coverage.Report, path string) *coverage.File {
	t.Helper()
	for i := range rep.Files {
		if rep.Files[i].Path == path {
			return &rep.Files[i]
		}
	}
	t.Fatalf("no %s in %+v", path, rep.Files)
	return nil
}

func equalRanges(a, b []coverage.Range) bool { return slices.Equal(a, b) }

const clampC = `int clamp(int x, int lo, int hi) {
	if (x < lo)
		return lo;
	if (x > hi)
		return hi;
	return x;
}

int unused(int x) {
	return x * 2;
}
`

// testC fails its second check, after running code of lib.c.
const testC = `#include <stdio.h>
int clamp(int, int, int);
int main(void) {
	if (clamp(5, 0, 10) != 5) { printf("FAIL clamp\n"); return 1; }
	if (clamp(-1, 0, 10) != 1) { printf("FAIL low\n"); return 1; }
	printf("PASS\n");
	return 0;
}
`

// gcovTotals runs gcov over the data files and reads its own figures:
// file → covered and counted lines.
func gcovTotals(t *testing.T, dir string, data []string) map[string][2]int {
	t.Helper()
	cmd := exec.Command("gcov", append([]string{"-n"}, data...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gcov: %v\n%s", err, out)
	}
	got := map[string][2]int{}
	for _, m := range regexp.MustCompile(`File '([^']+)'\nLines executed:([0-9.]+)% of (\d+)`).FindAllStringSubmatch(string(out), -1) {
		pct, _ := strconv.ParseFloat(m[2], 64)
		n, _ := strconv.Atoi(m[3])
		path := m[1]
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		got[path] = [2]int{int(math.Round(pct * float64(n) / 100)), n}
	}
	return got
}

// checkAgainstGcov compares each file of the report with gcov's own
// figures for the same data files.
func checkAgainstGcov(t *testing.T, res *Result, step toolchain.Step, dir string) {
	t.Helper()
	data, _, err := coverage.DataFiles(step.Coverage.DataDirs)
	if err != nil || len(data) == 0 {
		t.Fatalf("data files %v: %v", data, err)
	}
	want := gcovTotals(t, dir, data)
	rep := res.Coverage
	for _, f := range rep.Files {
		w, ok := want[filepath.Join(dir, f.Path)]
		if !ok {
			t.Errorf("%s: gcov does not report it (%v)", f.Path, want)
			continue
		}
		if f.Covered != w[0] || f.Lines != w[1] {
			t.Errorf("%s: %d of %d lines, gcov says %d of %d", f.Path, f.Covered, f.Lines, w[0], w[1])
		}
	}
	if len(rep.Files) != len(want) {
		t.Errorf("%d files, gcov reports %d: %v", len(rep.Files), len(want), want)
	}
	lib := fileNamed(t, rep, "lib.c")
	if want := []coverage.Range{{From: 5, To: 5}, {From: 9, To: 10}}; !equalRanges(lib.Uncovered, want) {
		t.Errorf("lib.c uncovered %v, want %v", lib.Uncovered, want)
	}
}

// A make project whose test fails: gcc's counters are written as the test
// program exits, and they are what gcov itself counts.
func TestMakeCoverageMatchesGcov(t *testing.T) {
	nativeprojects.Need(t, "gcc")
	nativeprojects.Need(t, "gcov")
	dir := writeFiles(t, map[string]string{
		"lib.c": clampC, "test.c": testC,
		"Makefile": "CFLAGS = -O0\ntest: t\n\t./t\nt: lib.o test.o\n\t$(CC) $(CFLAGS) $(LDFLAGS) -o t lib.o test.o\n",
	})
	for run := range 2 { // the second run counts itself only
		res, step := runCoverage(t, toolchain.Make, dir)
		if res.Status == Succeeded {
			t.Errorf("run %d: status %s, want a failure", run, res.Status)
		}
		checkAgainstGcov(t, res, step, dir)
		if c := res.Coverage.Totals; c.Covered != 8 || c.Lines != 13 {
			t.Errorf("run %d: totals %+v, want 8 of 13 lines", run, c)
		}
		if e := res.Coverage.PathError; res.Coverage.FailedPath != nil || !strings.Contains(e, "the output names no failed test") {
			t.Errorf("run %d: the failed test's path %v, error %q; want it said no failed test was named", run, res.Coverage.FailedPath, e)
		}
	}
}

// A CMake project under CTest, one test failing: the report is the one
// gcov gives for the data in triage's coverage build directory.
func TestCTestCoverageMatchesGcov(t *testing.T) {
	nativeprojects.Need(t, "cmake")
	nativeprojects.Need(t, "gcov")
	dir := writeFiles(t, map[string]string{
		"lib.c": clampC, "test.c": testC,
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(cov C)\nenable_testing()\nadd_library(lib STATIC lib.c)\nadd_executable(t test.c)\ntarget_link_libraries(t lib)\nadd_test(NAME clamp COMMAND t)\n",
	})
	res, step := runCoverage(t, toolchain.CMake, dir)
	if res.Status != Failed {
		t.Errorf("status %s %q, want failed", res.Status, res.Line)
	}
	checkAgainstGcov(t, res, step, dir)
	if n := res.Coverage.Totals.Files; n != 2 {
		t.Errorf("%d own files, want lib.c and test.c: %+v", n, res.Coverage.Files)
	}
}

// llvmCovReport runs llvm-cov report over the run's merged profile and
// reads its own figures: file → covered and counted lines.
func llvmCovReport(t *testing.T, tools *coverage.LLVMTools, profile string, objects []string, ext string) map[string][2]int {
	t.Helper()
	args := []string{"report", "-instr-profile=" + profile, objects[0]}
	for _, o := range objects[1:] {
		args = append(args, "-object="+o)
	}
	out, err := exec.Command(tools.Cov, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("llvm-cov report: %v\n%s", err, out)
	}
	// Filename, then regions, missed, cover; functions, missed, executed;
	// lines, missed, cover; …
	got := map[string][2]int{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 10 || !strings.HasSuffix(f[0], ext) {
			continue
		}
		lines, _ := strconv.Atoi(f[7])
		missed, _ := strconv.Atoi(f[8])
		got["/"+strings.TrimPrefix(f[0], "/")] = [2]int{lines - missed, lines}
	}
	return got
}

// A cargo crate with a failing test: each file has the figures llvm-cov
// report gives for the same profile and executables (strsim's counts the
// lines its closures share with their functions twice, as report does),
// the lines of the function no test ran are uncovered, and the packaged
// dependency's file is listed apart (vendored).
func TestCargoCoverageMatchesLLVMCov(t *testing.T) {
	nativeprojects.Need(t, "cargo")
	dir := writeFiles(t, nativeprojects.CargoCovered())
	steps, err := toolchain.TestPlan(toolchain.Cargo, dir, toolchain.Options{Coverage: true, CoverageDir: t.TempDir(), Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	var raw strings.Builder
	res, err := Run(context.Background(), Request{Kind: KindTest, Steps: steps, Level: logfilter.Standard, ProjectDir: dir, Raw: &raw})
	if err != nil {
		t.Fatal(err)
	}
	if res.Coverage == nil {
		t.Fatalf("no coverage: %s\n%s", res.CoverageError, raw.String())
	}
	if res.Status != Failed {
		t.Errorf("status %s %q, want failed (tests::fails)", res.Status, res.Line)
	}
	step := steps[len(steps)-1]
	tools, err := coverage.FindLLVMTools(context.Background(), dir, step.Env)
	if err != nil {
		t.Fatal(err)
	}
	objects, err := coverage.CargoObjects(context.Background(), step.Coverage.Objects, dir, step.Env)
	if err != nil {
		t.Fatal(err)
	}
	want := llvmCovReport(t, tools, filepath.Join(step.Coverage.ProfileDir, "merged.profdata"), objects, ".rs")
	rep := res.Coverage
	for _, f := range rep.Files {
		path := f.Path
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		if w, ok := want[path]; !ok || f.Covered != w[0] || f.Lines != w[1] {
			t.Errorf("%s: %d of %d lines, llvm-cov report says %d of %d (%v)", f.Path, f.Covered, f.Lines, w[0], w[1], want)
		}
	}
	if len(rep.Files) != len(want) {
		t.Errorf("%d files, llvm-cov report has %d: %v", len(rep.Files), len(want), want)
	}
	lib := fileNamed(t, rep, "src/lib.rs")
	if rep.Totals.Files != 1 || rep.Totals.Lines != lib.Lines || rep.Totals.Covered != lib.Covered {
		t.Errorf("totals %+v, want src/lib.rs's alone", rep.Totals)
	}
	if want := []coverage.Range{{From: 6, To: 6}, {From: 11, To: 14}, {From: 33, To: 33}}; !equalRanges(lib.Uncovered, want) {
		t.Errorf("src/lib.rs uncovered %v, want %v (return hi, unused, the end of the failing test)", lib.Uncovered, want)
	}
	var dep *coverage.File
	for i := range rep.Files {
		if strings.HasPrefix(rep.Files[i].Path, "/usr/share/cargo/registry/strsim-") {
			dep = &rep.Files[i]
		}
	}
	if dep == nil || dep.Kind != coverage.Vendored || rep.Apart[coverage.Vendored].Files != 1 || dep.Covered == 0 {
		t.Fatalf("strsim's file %+v, apart %+v: want it listed apart as vendored, partly covered", dep, rep.Apart)
	}
}

// stubTools writes programs into a new directory: a rustc of LLVM 22 whose
// sysroot has no llvm-tools, and an llvm-profdata and llvm-cov of LLVM 14.
func stubTools(t *testing.T) string {
	t.Helper()
	bin, sysroot := t.TempDir(), t.TempDir()
	for name, text := range map[string]string{
		"rustc": "#!/bin/sh\nif [ \"$1\" = --print ]; then echo " + sysroot + "; exit 0; fi\n" +
			"printf 'rustc 1.95.0 (59807616e 2026-04-14)\\nbinary: rustc\\nhost: x86_64-unknown-linux-gnu\\nrelease: 1.95.0\\nLLVM version: 22.1.2\\n'\n",
		"llvm-profdata": "#!/bin/sh\necho 'Debian LLVM version 14.0.6'\n",
		"llvm-cov":      "#!/bin/sh\necho 'Debian LLVM version 14.0.6'\n",
	} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// Without LLVM tools of the rustc's LLVM major, a cargo coverage run is
// refused before anything is built, saying what was tried and what to
// install.
func TestCargoCoverageWithoutMatchingLLVMTools(t *testing.T) {
	dir := writeFiles(t, nativeprojects.CargoCovered())
	env := map[string]string{"PATH": stubTools(t)}
	steps, err := toolchain.TestPlan(toolchain.Cargo, dir, toolchain.Options{Coverage: true, CoverageDir: t.TempDir(), Env: env})
	if err != nil {
		t.Fatal(err)
	}
	var raw strings.Builder
	res, err := Run(context.Background(), Request{Kind: KindTest, Steps: steps, Level: logfilter.Standard, ProjectDir: dir, Raw: &raw})
	if err == nil || res != nil || raw.Len() > 0 {
		t.Fatalf("ran (%v, %q), want a refusal before the build", err, raw.String())
	}
	if !fault.Is(err, fault.KindUnavailable) {
		t.Errorf("error kind %s, want unavailable", fault.KindOf(err))
	}
	for _, want := range []string{
		"rustc 1.95.0 (59807616e 2026-04-14) (LLVM 22.1.2) writes LLVM 22 profiles",
		"llvm-profdata-22: not found", "lib/rustlib/x86_64-unknown-linux-gnu/bin/llvm-profdata: not found",
		"llvm-profdata: LLVM 14", "apt-get install llvm-22", "rustup component add llvm-tools",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q:\n%v", want, err)
		}
	}
}
