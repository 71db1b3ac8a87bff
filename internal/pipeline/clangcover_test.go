package pipeline

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/toolchain"
)

// testClang is the clang scripts/install-deps.sh installs, of the LLVM
// whose llvm-profdata and llvm-cov it installs too.
const testClang = "clang-22"

// runClangCoverage plans and runs a coverage test run of dir with tc and
// o (its coverage directory set).
func runClangCoverage(t *testing.T, tc toolchain.Toolchain, dir string, o toolchain.Options) (*Result, toolchain.Step, error) {
	t.Helper()
	o.Coverage, o.CoverageDir = true, t.TempDir()
	steps, err := toolchain.TestPlan(tc, dir, o)
	if err != nil {
		t.Fatal(err)
	}
	step := steps[len(steps)-1]
	if c := step.Coverage; c == nil || c.Tool != coverage.ToolLLVM || c.Compiler == "" {
		t.Fatalf("the plan's coverage %+v, want clang's (llvm-cov)", c)
	}
	res, err := Run(context.Background(), Request{Kind: KindTest, Steps: steps, Level: logfilter.Standard, ProjectDir: dir, Raw: &strings.Builder{}})
	return res, step, err
}

// checkAgainstLLVMCov compares each file of a clang run's report with
// llvm-cov report's figures for the run's merged profile and programs,
// and lib.c's uncovered lines with those llvm-cov counts zero.
func checkAgainstLLVMCov(t *testing.T, res *Result, step toolchain.Step, dir string) {
	t.Helper()
	if res.Coverage == nil {
		t.Fatalf("no coverage: %s", res.CoverageError)
	}
	c := step.Coverage
	tools, err := coverage.FindClangTools(context.Background(), dir, step.Env, c.Compiler, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	objects, err := coverage.InstrumentedObjects(c.ObjectDirs)
	if err != nil || len(objects) == 0 {
		t.Fatalf("objects %v: %v", objects, err)
	}
	want := llvmCovReport(t, tools, filepath.Join(c.ProfileDir, "merged.profdata"), objects, ".c")
	rep := res.Coverage
	for _, f := range rep.Files {
		// llvm-cov report names files without the prefix they share.
		w, ok := want["/"+f.Path]
		if !ok || f.Covered != w[0] || f.Lines != w[1] {
			t.Errorf("%s: %d of %d lines, llvm-cov report says %d of %d (%v)", f.Path, f.Covered, f.Lines, w[0], w[1], want)
		}
	}
	if len(rep.Files) != len(want) || rep.Totals.Files != 2 {
		t.Errorf("%d files (%d own), llvm-cov report has %d: %v", len(rep.Files), rep.Totals.Files, len(want), want)
	}
	lib := fileNamed(t, rep, "lib.c")
	if want := []coverage.Range{{From: 5, To: 5}, {From: 9, To: 11}}; !equalRanges(lib.Uncovered, want) {
		t.Errorf("lib.c uncovered %v, want %v (return hi, and unused)", lib.Uncovered, want)
	}
}

// A make project built by clang (CC), its test failing: the run compiles
// with clang's source-based coverage, and its report is llvm-cov's for
// the same profiles; a second run counts itself only.
func TestClangMakeCoverageMatchesLLVMCov(t *testing.T) {
	nativeprojects.Need(t, testClang, "make")
	dir := writeFiles(t, map[string]string{
		"lib.c": clampC, "test.c": testC,
		"Makefile": "CFLAGS = -O0\ntest: t\n\t./t\nt: lib.o test.o\n\t$(CC) $(CFLAGS) $(LDFLAGS) -o t lib.o test.o\n",
	})
	for run := range 2 {
		res, step, err := runClangCoverage(t, toolchain.Make, dir, toolchain.Options{Env: map[string]string{"CC": testClang}, Args: []string{"-B"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status == Succeeded {
			t.Errorf("run %d: status %s, want a failure", run, res.Status)
		}
		checkAgainstLLVMCov(t, res, step, dir)
		if c := res.Coverage.Totals; c.Covered != 10 || c.Lines != 16 {
			t.Errorf("run %d: totals %+v, want 10 of 16 lines", run, c)
		}
	}
}

// A CMake project whose compiler is clang (CMAKE_C_COMPILER), one CTest
// test failing: llvm-cov's figures for the coverage build, and the failed
// test rerun alone ran clamp's failing branch.
func TestClangCTestCoverageMatchesLLVMCov(t *testing.T) {
	nativeprojects.Need(t, testClang, "cmake")
	dir := writeFiles(t, map[string]string{
		"lib.c": clampC, "test.c": testC,
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(cov C)\nenable_testing()\nadd_library(lib STATIC lib.c)\nadd_executable(t test.c)\ntarget_link_libraries(t lib)\nadd_test(NAME clamp COMMAND t)\n",
	})
	res, step, err := runClangCoverage(t, toolchain.CMake, dir, toolchain.Options{ConfigureArgs: []string{"-DCMAKE_C_COMPILER=" + testClang}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Failed {
		t.Errorf("status %s %q, want failed", res.Status, res.Line)
	}
	checkAgainstLLVMCov(t, res, step, dir)
	p := res.Coverage.FailedPath
	if p == nil {
		t.Fatalf("no failed test's path: %s", res.Coverage.PathError)
	}
	if p.Test != "clamp" {
		t.Errorf("the path's test %q, want clamp", p.Test)
	}
}

// A clang without its profile runtime (here: a resource directory that
// has none) is refused before the build, saying what to install.
func TestClangCoverageWithoutProfileRuntime(t *testing.T) {
	nativeprojects.Need(t, testClang, "make")
	dir := writeFiles(t, map[string]string{"lib.c": clampC, "test.c": testC, "Makefile": "test:\n\t$(CC) -o t lib.c test.c && ./t\n"})
	cc := testClang + " -resource-dir=" + t.TempDir()
	res, _, err := runClangCoverage(t, toolchain.Make, dir, toolchain.Options{Env: map[string]string{"CC": cc}})
	if err == nil || res != nil {
		t.Fatalf("ran (%+v), want a refusal before the build", res)
	}
	if !fault.Is(err, fault.KindUnavailable) {
		t.Errorf("error kind %s, want unavailable", fault.KindOf(err))
	}
	for _, want := range []string{"cannot link a program compiled with -fprofile-instr-generate", "libclang_rt.profile", "apt-get install libclang-rt-22-dev"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q:\n%v", want, err)
		}
	}
}

// A Makefile that assigns CFLAGS with override drops clang's flags: no
// profile is written, and the error says what was tried and what to
// change in the Makefile.
func TestClangCoverageOverriddenCFLAGS(t *testing.T) {
	nativeprojects.Need(t, testClang, "make")
	dir := writeFiles(t, map[string]string{
		"lib.c": clampC, "test.c": testC,
		"Makefile": "override CFLAGS = -O0\noverride LDFLAGS =\ntest: t\n\t./t\nt: lib.o test.o\n\t$(CC) $(CFLAGS) $(LDFLAGS) -o t lib.o test.o\n",
	})
	res, _, err := runClangCoverage(t, toolchain.Make, dir, toolchain.Options{Env: map[string]string{"CC": testClang}, Args: []string{"-B"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"no LLVM profile (.profraw) was written", "-fprofile-instr-generate -fcoverage-mapping", "assigns CFLAGS, CXXFLAGS or LDFLAGS under a conditional or with override"} {
		if !strings.Contains(res.CoverageError, want) {
			t.Errorf("the coverage error lacks %q:\n%s", want, res.CoverageError)
		}
	}
}
