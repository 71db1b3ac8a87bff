package testreport

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// flakyGoTest is a test that fails on every third run and, when PANIC_AT
// is set, panics on that run: a counter file says which run it is.
const flakyGoTest = `package flaky

import (
	"os"
	"strconv"
	"testing"
)

func bump(t *testing.T) int {
	p := os.Getenv("COUNTER")
	b, _ := os.ReadFile(p)
	n, _ := strconv.Atoi(string(b))
	n++
	os.WriteFile(p, []byte(strconv.Itoa(n)), 0o644)
	return n
}

func TestFlaky(t *testing.T) {
	n := bump(t)
	if os.Getenv("PANIC_AT") == strconv.Itoa(n) {
		panic("boom at run " + strconv.Itoa(n))
	}
	if n%3 == 0 {
		t.Errorf("counter is %d", n)
	}
}

func TestStable(t *testing.T) {}
`

// goRepeat runs the flaky test with go test -json -count=n and reads it.
func goRepeat(t *testing.T, n int, panicAt string) RunnerRuns {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module flaky\n\ngo 1.21\n", "flaky_test.go": flakyGoTest} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "test", "-json", "-count="+strconv.Itoa(n), ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "COUNTER="+filepath.Join(dir, "count"), "PANIC_AT="+panicAt)
	out, _ := cmd.Output()
	rr, err := GoRuns(bytes.NewReader(out), n)
	if err != nil {
		t.Fatal(err)
	}
	return rr
}

// TestGoRunsCountsEachRun: go test -count=7 in one process gives each
// test seven outcomes, the failures in the runs they happened in, with
// their messages; the tally reads them as seven runs.
func TestGoRunsCountsEachRun(t *testing.T) {
	rr := goRepeat(t, 7, "")
	if rr.Count() != 7 || rr.Ended != 0 || len(rr.Tests) != 2 {
		t.Fatalf("runs %d ended %d tests %+v", rr.Count(), rr.Ended, rr.Tests)
	}
	tally := NewTally(7)
	for k := 1; k <= rr.Count(); k++ {
		occ := rr.Run(k, FormatGoJSON)
		if (k%3 == 0) != (len(occ) == 1) {
			t.Errorf("run %d: %+v", k, occ)
		}
		tally.Add("out1", occ)
	}
	f := tally.Result()
	if got := f.Verdict(); got != "FLAKY: flaky TestFlaky failed 2 of 7 runs (1 distinct failure)" {
		t.Errorf("verdict %q", got)
	}
	if g := f.Tests[0].Groups[0]; g.FirstRun != 3 || g.Count != 2 || g.Kind != "failed" {
		t.Errorf("group %+v", g)
	}
}

// TestGoRunsStopsAtPanic: a panic in run 4 ends the binary: four runs
// counted, the fourth crashed.
func TestGoRunsStopsAtPanic(t *testing.T) {
	rr := goRepeat(t, 9, "4")
	if rr.Ended != 4 || rr.Count() != 4 {
		t.Fatalf("ended %d count %d: %+v", rr.Ended, rr.Count(), rr.Tests)
	}
	occ := rr.Run(4, FormatGoJSON)
	if len(occ) != 1 || occ[0].Kind != "crashed" || occ[0].Name != "TestFlaky" {
		t.Errorf("run 4: %+v", occ)
	}
}

// TestCTestRunsUntilFail: ctest --repeat until-fail:5 over a program that
// fails on its third run: three runs of it, the third failed with its
// output's line; the stable test five runs.
func TestCTestRunsUntilFail(t *testing.T) {
	for _, tool := range []string{"cmake", "ctest", "cc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("no " + tool)
		}
	}
	dir := t.TempDir()
	files := map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nproject(f C)\nenable_testing()\nadd_executable(flaky flaky.c)\n" +
			"add_test(NAME flaky COMMAND flaky ${CMAKE_CURRENT_BINARY_DIR}/count)\nadd_test(NAME stable COMMAND flaky)\n",
		"flaky.c": `#include <stdio.h>
int main(int argc, char **argv) {
	if (argc < 2) return 0;
	int n = 0;
	FILE *f = fopen(argv[1], "r");
	if (f) { if (fscanf(f, "%d", &n) != 1) n = 0; fclose(f); }
	f = fopen(argv[1], "w"); fprintf(f, "%d", ++n); fclose(f);
	if (n % 3 == 0) { printf("boom at %d\n", n); return 1; }
	return 0;
}
`}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := filepath.Join(dir, "b")
	for _, argv := range [][]string{{"cmake", "-S", dir, "-B", b}, {"cmake", "--build", b}} {
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, out)
		}
	}
	cmd := exec.Command("ctest", "--output-on-failure", "--repeat", "until-fail:5")
	cmd.Dir = b
	out, _ := cmd.CombinedOutput()
	rr, err := CTestRuns(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Tests) != 2 || len(rr.Tests[0].Attempts) != 3 || len(rr.Tests[1].Attempts) != 5 {
		t.Fatalf("tests %+v\n%s", rr.Tests, out)
	}
	occ := rr.Run(3, FormatCTest)
	if len(occ) != 1 || occ[0].Name != "flaky" || occ[0].Kind != "failed" {
		t.Errorf("run 3: %+v", occ)
	}
	if len(rr.Run(2, FormatCTest)) != 0 {
		t.Errorf("run 2 failed: %+v", rr.Run(2, FormatCTest))
	}
}
