package pipeline

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/toolchain"
)

var goFailing = map[string]string{
	"go.mod": "module example.com/path\n\ngo 1.22\n",
	"calc/calc.go": `package calc

import "example.com/path/parse"

// Sum is a number's value, its absolute one.
func Sum(s string) int {
	n := parse.Number(s)
	if n < 0 {
		return -n
	}
	return n
}

func Unused() int { return 42 }
`,
	"parse/parse.go": `package parse

func Number(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + p.digit(c)
	}
	return n
}

func Never(s string) bool {
	return s == ""
}

type digits struct{}

var p digits

func (digits) digit(c rune) int { return int(c - '0') }

func (*digits) unused() {}
`,
	"calc/calc_test.go": `package calc

import "testing"

func TestPasses(t *testing.T) {
	if Sum("1")+Unused() != 43 {
		t.Fatal("sum")
	}
}

func TestSumFails(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		if got := Sum("12"); got != 13 {
			t.Fatalf("Sum = %d", got)
		}
	})
}

func TestAlsoFails(t *testing.T) { t.Fatal("second") }
`,
}

// TestGoFailedPath: the first failed test of a Go coverage run is rerun
// alone, and its path is what go tool cover shows of that test's own
// profile: the functions it ran (cover -func above 0%) and the lines of
// the blocks that ran, nothing of what only the passing test ran.
func TestGoFailedPath(t *testing.T) {
	dir := writeFiles(t, goFailing)
	res, _ := runCoverage(t, toolchain.Go, dir)
	p := res.Coverage.FailedPath
	if p == nil {
		t.Fatalf("no path: %s", res.Coverage.PathError)
	}
	if p.Test != "TestSumFails" || p.OtherFailed != 1 || p.At != "calc/calc_test.go:14" {
		t.Errorf("path of %q at %q, %d others; want TestSumFails at calc/calc_test.go:14, 1 other", p.Test, p.At, p.OtherFailed)
	}
	profile := filepath.Join(t.TempDir(), "single.out")
	cmd := exec.Command("go", "test", "-count=1", "-run=^TestSumFails$", "-covermode=atomic", "-coverpkg=./...", "-coverprofile="+profile, "./calc")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("the test passed alone:\n%s", out)
	}
	wantFuncs, wantLines := goToolCover(t, dir, profile)
	var gotFuncs []string
	gotLines := map[string][]int{}
	for _, f := range p.Files {
		for _, fn := range f.Funcs {
			gotFuncs = append(gotFuncs, f.Path+":"+fn.Name)
			for _, r := range fn.Lines {
				for l := r.From; l <= r.To; l++ {
					gotLines[f.Path] = append(gotLines[f.Path], l)
				}
			}
		}
	}
	if !slices.Equal(gotFuncs, wantFuncs) {
		t.Errorf("functions %v, go tool cover -func: %v", gotFuncs, wantFuncs)
	}
	for file, want := range wantLines {
		if !slices.Equal(gotLines[file], want) {
			t.Errorf("%s: lines %v, the profile's blocks that ran: %v", file, gotLines[file], want)
		}
	}
	if len(gotLines) != len(wantLines) {
		t.Errorf("files %v, want those of %v", gotLines, wantLines)
	}
	var b strings.Builder
	p.WriteText(&b, 10)
	if want := "the failing test TestSumFails ran: calc/calc.go: Sum 6-8,11; parse/parse.go: Number 3-8, digit 19 → failed at calc/calc_test.go:14 (1 other failed tests not rerun)\n"; b.String() != want {
		t.Errorf("text %q, want %q", b.String(), want)
	}
}

// goToolCover reads a single test's profile as go's tools do: the
// functions go tool cover -func gives above 0%, and per file the lines
// that only blocks which ran span (a line any run block spans is run).
func goToolCover(t *testing.T, dir, profile string) ([]string, map[string][]int) {
	t.Helper()
	cmd := exec.Command("go", "tool", "cover", "-func="+profile)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool cover -func: %v", err)
	}
	var funcs []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[2] == "0.0%" || f[0] == "total:" {
			continue
		}
		file, _, _ := strings.Cut(strings.TrimPrefix(f[0], "example.com/path/"), ":")
		funcs = append(funcs, file+":"+f[1])
	}
	lines := map[string][]int{}
	data, err := exec.Command("cat", profile).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n")[1:] {
		pos, rest, ok := strings.Cut(line, " ")
		if !ok || strings.HasSuffix(rest, " 0") {
			continue
		}
		file, span, _ := strings.Cut(strings.TrimPrefix(pos, "example.com/path/"), ":")
		from, to, _ := strings.Cut(span, ",")
		a, _ := strconv.Atoi(strings.Split(from, ".")[0])
		z, _ := strconv.Atoi(strings.Split(to, ".")[0])
		for l := a; l <= z; l++ {
			if !slices.Contains(lines[file], l) {
				lines[file] = append(lines[file], l)
			}
		}
	}
	for _, ls := range lines {
		slices.Sort(ls)
	}
	return funcs, lines
}

// A CMake project whose CTest test t_fail fails (with Unity's lines) after
// running one branch of clamp, while t_pass runs the others and unused:
// the failed test's path is what gcov gives of t_fail's data alone — the
// functions gcov -f says ran, the lines gcov -t counts above 0.
func TestCTestFailedPath(t *testing.T) {
	nativeprojects.Need(t, "cmake")
	nativeprojects.Need(t, "gcov")
	dir := writeFiles(t, map[string]string{
		"lib.c":    clampC,
		"t_pass.c": "int clamp(int, int, int);\nint unused(int);\nint main(void) {\n\treturn clamp(20, 0, 10) == 10 && unused(1) == 2 ? 0 : 1;\n}\n",
		"t_fail.c": "#include <stdio.h>\nint clamp(int, int, int);\nint main(void) {\n\tif (clamp(-1, 0, 10) != 1) {\n\t\tprintf(\"t_fail.c:5:test_low:FAIL: Expected 1 Was 0\\n\");\n\t}\n\tprintf(\"\\n-----------------------\\n1 Tests 1 Failures 0 Ignored \\nFAIL\\n\");\n\treturn 1;\n}\n",
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(cov C)\nenable_testing()\nadd_library(lib STATIC lib.c)\n" +
			"foreach(t t_pass t_fail)\n  add_executable(${t} ${t}.c)\n  target_link_libraries(${t} lib)\n  add_test(NAME ${t} COMMAND ${t})\nendforeach()\n",
	})
	res, step := runCoverage(t, toolchain.CMake, dir)
	p := res.Coverage.FailedPath
	if p == nil {
		t.Fatalf("no path: %s", res.Coverage.PathError)
	}
	if p.Test != "t_fail" || p.At != "t_fail.c:5" || p.OtherFailed != 0 {
		t.Errorf("path of %q at %q, %d others; want t_fail at t_fail.c:5", p.Test, p.At, p.OtherFailed)
	}
	// gcov's own view of t_fail alone.
	if err := coverage.RemoveData(step.Coverage.DataDirs); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("ctest", "-R", "^t_fail$")
	cmd.Dir = step.Dir
	cmd.Run() // fails
	data, _, err := coverage.DataFiles(step.Coverage.DataDirs)
	if err != nil || len(data) == 0 {
		t.Fatalf("data %v: %v", data, err)
	}
	wantFuncs, ran, notRun := gcovOwn(t, dir, data)
	var gotFuncs []string
	for _, f := range p.Files {
		for _, fn := range f.Funcs {
			gotFuncs = append(gotFuncs, f.Path+":"+fn.Name)
		}
	}
	slices.Sort(gotFuncs)
	if !slices.Equal(gotFuncs, wantFuncs) {
		t.Errorf("functions %v, gcov -b says called: %v", gotFuncs, wantFuncs)
	}
	// The path's ranges span lines gcov does not count (a closing brace):
	// every line gcov counts above 0 is in them, none it counts at 0.
	for file, lines := range ran {
		for _, l := range lines {
			if !p.Ran(file, l) {
				t.Errorf("%s:%d ran (gcov), not in the path", file, l)
			}
		}
	}
	for file, lines := range notRun {
		for _, l := range lines {
			if p.Ran(file, l) {
				t.Errorf("%s:%d did not run (gcov), in the path", file, l)
			}
		}
	}
	if len(p.Files) != len(ran) {
		t.Errorf("%d files in the path, gcov's run lines are in %v", len(p.Files), ran)
	}
	var b strings.Builder
	p.WriteText(&b, 10)
	if want := "the failing test t_fail ran: lib.c: clamp 1-3; t_fail.c: main 3-8 → failed at t_fail.c:5\n"; b.String() != want {
		t.Errorf("text %q, want %q", b.String(), want)
	}
}

// gcovOwn reads gcov's annotated source of the data files (gcov -t -b):
// the functions (file:name, sorted) it says were called, and per file of
// dir the lines it counts above 0 and those it counts at 0.
func gcovOwn(t *testing.T, dir string, data []string) (funcs []string, ran, notRun map[string][]int) {
	t.Helper()
	cmd := exec.Command("gcov", append([]string{"-t", "-b"}, data...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gcov -t -b: %v", err)
	}
	ran, notRun = map[string][]int{}, map[string][]int{}
	file := ""
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 3 && f[0] == "function" && f[2] == "called" {
			if f[3] != "0" && !slices.Contains(funcs, file+":"+f[1]) && file != "" {
				funcs = append(funcs, file+":"+f[1])
			}
			continue
		}
		parts := strings.SplitN(line, ":", 3)
		if len(parts) < 3 {
			continue
		}
		if src, ok := strings.CutPrefix(parts[2], "Source:"); ok && strings.TrimSpace(parts[1]) == "0" {
			file = ""
			if !filepath.IsAbs(src) {
				src = filepath.Join(dir, src)
			}
			if rel, err := filepath.Rel(dir, src); err == nil && !strings.HasPrefix(rel, "..") {
				file = rel
			}
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(parts[1]))
		count := strings.TrimSuffix(strings.TrimSpace(parts[0]), "*")
		if count == "#####" || count == "=====" {
			count = "0"
		}
		c, cerr := strconv.Atoi(count)
		if err != nil || cerr != nil || file == "" {
			continue
		}
		lines := ran
		if c == 0 {
			lines = notRun
		}
		if !slices.Contains(lines[file], n) {
			lines[file] = append(lines[file], n)
		}
	}
	slices.Sort(funcs)
	return funcs, ran, notRun
}

// A cargo crate's failing test tests::fails, rerun alone: its path holds
// every line of src/lib.rs that llvm-cov show counts above 0 for that
// test's own run (cargo test tests::fails -- --exact, profiled apart), and
// none it counts at 0 (unused, clamp's upper branch, the passing test).
func TestCargoFailedPath(t *testing.T) {
	nativeprojects.Need(t, "cargo")
	dir := writeFiles(t, nativeprojects.CargoCovered())
	steps, err := toolchain.TestPlan(toolchain.Cargo, dir, toolchain.Options{Coverage: true, CoverageDir: t.TempDir(), Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Request{Kind: KindTest, Steps: steps, Level: logfilter.Standard, ProjectDir: dir})
	if err != nil || res.Coverage == nil {
		t.Fatalf("run: %v, %+v", err, res)
	}
	p := res.Coverage.FailedPath
	if p == nil {
		t.Fatalf("no path: %s", res.Coverage.PathError)
	}
	if p.Test != "tests::fails" || p.At != "src/lib.rs:32" || p.OtherFailed != 0 {
		t.Errorf("path of %q at %q, %d others; want tests::fails at src/lib.rs:32", p.Test, p.At, p.OtherFailed)
	}
	step := steps[len(steps)-1]
	own := t.TempDir()
	cmd := exec.Command("cargo", "test", "tests::fails", "--", "--exact")
	cmd.Dir, cmd.Env = dir, os.Environ()
	for k, v := range step.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "LLVM_PROFILE_FILE="+filepath.Join(own, "%p-%m.profraw"))
	cmd.Run() // fails
	var b strings.Builder
	p.WriteText(&b, 10)
	if want := "the failing test tests::fails ran: src/lib.rs: 1-3,9,31-32 → failed at src/lib.rs:32\n"; b.String() != want {
		t.Errorf("text %q, want %q (llvm-cov's LCOV names no functions: its lines stand alone)", b.String(), want)
	}
	ran, notRun := llvmCovShow(t, dir, step, own)
	if len(ran) == 0 {
		t.Fatal("llvm-cov show counts no line of src/lib.rs above 0")
	}
	for _, l := range ran {
		if !p.Ran("src/lib.rs", l) {
			t.Errorf("src/lib.rs:%d ran (llvm-cov show), not in the path %+v", l, p.Files)
		}
	}
	for _, l := range notRun {
		if p.Ran("src/lib.rs", l) {
			t.Errorf("src/lib.rs:%d did not run (llvm-cov show), in the path %+v", l, p.Files)
		}
	}
}

// llvmCovShow merges the profiles in dir and reads llvm-cov show's counts
// of src/lib.rs: the lines above 0 and at 0.
func llvmCovShow(t *testing.T, project string, step toolchain.Step, dir string) (ran, notRun []int) {
	t.Helper()
	tools, err := coverage.FindLLVMTools(context.Background(), project, step.Env)
	if err != nil {
		t.Fatal(err)
	}
	objects, err := coverage.CargoObjects(context.Background(), step.Coverage.Objects, project, step.Env)
	if err != nil {
		t.Fatal(err)
	}
	profiles, _ := coverage.Profiles(dir)
	merged := filepath.Join(dir, "own.profdata")
	if out, err := exec.Command(tools.Profdata, append([]string{"merge", "-sparse", "-o", merged}, profiles...)...).CombinedOutput(); err != nil {
		t.Fatalf("llvm-profdata merge: %v\n%s", err, out)
	}
	args := []string{"show", "-instr-profile=" + merged, objects[0]}
	for _, o := range objects[1:] {
		args = append(args, "-object="+o)
	}
	out, err := exec.Command(tools.Cov, append(args, filepath.Join(project, "src/lib.rs"))...).CombinedOutput()
	if err != nil {
		t.Fatalf("llvm-cov show: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.SplitN(line, "|", 3)
		if len(f) < 3 {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(f[0]))
		count := strings.TrimSpace(f[1])
		if err != nil || count == "" {
			continue
		}
		if count == "0" {
			notRun = append(notRun, n)
		} else {
			ran = append(ran, n)
		}
	}
	return ran, notRun
}

// goPanicking is a module whose one test panics in its package's code.
var goPanicking = map[string]string{
	"go.mod":   "module example.com/boom\n\ngo 1.22\n",
	"ok/ok.go": "package ok\n\nfunc Two() int { return 2 }\n",
	"ok/ok_test.go": `package ok

import "testing"

func TestTwo(t *testing.T) {
	if Two() != 2 {
		t.Fatal("two")
	}
}
`,
	"boom/boom.go": "package boom\n\nfunc Explode(s string) int {\n\tif s != \"\" {\n\t\tpanic(\"boom: \" + s)\n\t}\n\treturn 0\n}\n",
	"boom/boom_test.go": `package boom

import "testing"

func TestExplode(t *testing.T) { Explode("now") }
`,
}

// A test that panics writes no coverage data, alone or not: its path is
// unknown, never "none of the project's own lines", and a run whose only
// data it was has no coverage, never 100% of no lines.
func TestCrashedTestsPathIsUnknown(t *testing.T) {
	t.Run("beside a package that wrote its data", func(t *testing.T) {
		res, _ := runCoverage(t, toolchain.Go, writeFiles(t, goPanicking))
		if res.Status != Crashed || res.Coverage.FailedPath != nil {
			t.Fatalf("status %s, path %+v", res.Status, res.Coverage.FailedPath)
		}
		if e := res.Coverage.PathError; !strings.Contains(e, "TestExplode crashed") || !strings.Contains(e, "wrote no coverage data") {
			t.Errorf("path error %q", e)
		}
		if len(res.Coverage.Files) == 0 || !slices.ContainsFunc(res.Coverage.Notes, func(n string) bool { return strings.Contains(n, "crashes") }) {
			t.Errorf("the other package's coverage, with a note of the crash: %+v", res.Coverage)
		}
	})
	t.Run("alone", func(t *testing.T) {
		files := maps.Clone(goPanicking)
		delete(files, "ok/ok.go")
		delete(files, "ok/ok_test.go")
		dir := writeFiles(t, files)
		steps, err := toolchain.TestPlan(toolchain.Go, dir, toolchain.Options{Coverage: true, CoverageDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), Request{Kind: KindTest, Steps: steps, Level: logfilter.Standard, ProjectDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != Crashed || res.Coverage != nil || !strings.Contains(res.CoverageError, "names no file") || !strings.Contains(res.CoverageError, "crashes") {
			t.Errorf("status %s, coverage %+v, error %q", res.Status, res.Coverage, res.CoverageError)
		}
	})
}

// A failure's file:line is named as the path's files are: from the
// project's top when the runner gave an absolute path into it (Unity
// does), as given otherwise.
func TestFailedAtNamesProjectFilesFromTheTop(t *testing.T) {
	for file, want := range map[string]string{
		"/p/proj/tests/parse.c": "tests/parse.c:72",
		"/usr/include/x.h":      "/usr/include/x.h:72",
		"parse.c":               "parse.c:72",
		"/p/project2/a.c":       "/p/project2/a.c:72",
	} {
		c := testreport.Case{Suite: "s", Name: "t", Status: testreport.Failed, File: file, Line: 72}
		r := &testreport.Report{Cases: []testreport.Case{c}}
		if got := failedAt(r, &r.Cases[0], coverage.ToolGcov, "/p/proj"); got != want {
			t.Errorf("%s: %q, want %q", file, got, want)
		}
	}
}
