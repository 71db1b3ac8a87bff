package run_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// flakyModule's TestFlaky fails deterministically on odd runs, by a
// counter in the file $FLAKY_COUNTER: with two messages by turns, so that
// its failures form two groups. TestAlways always fails; TestPass never.
var flakyModule = map[string]string{
	"go.mod": "module example.com/flaky\n\ngo 1.22\n",
	"flaky_test.go": `package flaky

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func bump(t *testing.T) int {
	path := os.Getenv("FLAKY_COUNTER")
	b, _ := os.ReadFile(path)
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	n++
	if err := os.WriteFile(path, []byte(strconv.Itoa(n)), 0o644); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestFlaky(t *testing.T) {
	switch n := bump(t); n % 4 {
	case 1:
		t.Errorf("counter %d is odd", n)
	case 3:
		t.Fatalf("lost the lock after %d tries", n*7)
	}
}

func TestAlways(t *testing.T) {
	if got := 2 + 2; got != 5 {
		t.Errorf("2 + 2 = %d, want 5", got)
	}
}

func TestPass(t *testing.T) {}
`,
}

// repeatCall is a test call on dir with the counter file counter, which
// starts at start.
func repeatCall(t *testing.T, dir, counter, start string, args map[string]any) map[string]any {
	t.Helper()
	if err := os.WriteFile(counter, []byte(start), 0o644); err != nil {
		t.Fatal(err)
	}
	call := map[string]any{"project_dir": dir, "env": map[string]string{"FLAKY_COUNTER": counter}, "timeout_s": 600}
	for k, v := range args {
		call[k] = v
	}
	return call
}

// repeatOf decodes a repeat's tally.
func repeatOf(t *testing.T, r mcptest.Result) testreport.Flakiness {
	t.Helper()
	var out buildTestOutput
	r.Decode(t, &out)
	if out.Tests == nil || out.Tests.Repeat == nil {
		t.Fatalf("no repeat in the answer:\n%s", r.Text)
	}
	return *out.Tests.Repeat
}

// TestRepeatGoFlaky: a Go test that fails on odd runs is FLAKY with its
// two distinct failures, each with its first run's output (one go test
// -count=8 holds them all); a test that
// always fails is said to fail N of N; a passing one passes N of N; an
// ordinary failing call suggests the repeat.
func TestRepeatGoFlaky(t *testing.T) {
	needTool(t, "go", "golang-go")
	c := mcptest.Connect(t, nil)
	dir := nativeprojects.Write(t, flakyModule)
	counter := filepath.Join(t.TempDir(), "counter")

	r := c.Call("test", repeatCall(t, dir, counter, "0", nil))
	if r.Outcome != "failed" || !strings.Contains(r.Text, `next: test {`) || !strings.Contains(r.Text, `"repeat":20`) ||
		!strings.Contains(r.Text, `"^TestAlways$"`) || !strings.Contains(r.Text, `"^TestFlaky$"`) {
		t.Errorf("a failing call suggests no repeat:\n%s", r.Text)
	}

	r = c.Call("test", repeatCall(t, dir, counter, "0", map[string]any{"repeat": 8}))
	const verdict = "TESTS FAILED: example.com/flaky TestAlways failed 8 of 8 runs; FLAKY: example.com/flaky TestFlaky failed 4 of 8 runs (2 distinct failures)"
	if r.Outcome != "failed" || r.FirstLine() != verdict {
		t.Fatalf("outcome %q verdict %q, want %q\n%s", r.Outcome, r.FirstLine(), verdict, r.Text)
	}
	f := repeatOf(t, r)
	if f.Runs != 8 || f.Failed != 8 || len(f.Tests) != 2 || f.Tests[1].Name != "TestFlaky" {
		t.Fatalf("tally %+v", f)
	}
	g := f.Tests[1].Groups
	if len(g) != 2 || g[0].Signature != "example.com/flaky TestFlaky | failed | flaky_test.go:N: counter N is odd" && g[0].Signature != "example.com/flaky TestFlaky | failed | counter N is odd" ||
		g[0].Count != 2 || g[0].FirstRun != 1 || g[1].Count != 2 || g[1].FirstRun != 3 || !strings.Contains(g[1].Message, "lost the lock after 21 tries") ||
		g[0].FirstOutput == "" || g[0].FirstOutput != g[1].FirstOutput {
		t.Fatalf("groups %+v", g)
	}
	// The 8 runs are one go test -count=8, whose output holds them all.
	if !strings.Contains(r.Text, "runs 1 to 8 ran in one go test -count=8") || !strings.Contains(r.Text, "runs 1 to 8 of 8 (shown below)") {
		t.Errorf("the answer does not say the runs shared one process:\n%s", r.Text)
	}
	page := c.Call("output_search", map[string]any{"output_id": g[1].FirstOutput, "pattern": "lost the lock"})
	if page.IsError || !strings.Contains(page.Text, "after 21 tries") {
		t.Errorf("run 3's output:\n%s", page.Text)
	}

	r = c.Call("test", repeatCall(t, dir, counter, "0", map[string]any{"repeat": 3, "run": []string{"TestPass"}}))
	if r.Outcome != "ok" || r.FirstLine() != "TESTS PASSED: 3 of 3 runs" || strings.Contains(r.Text, `"repeat":20`) {
		t.Errorf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}

	// until_fail: the counter starts at 1, so run 1 passes and run 2 fails.
	r = c.Call("test", repeatCall(t, dir, counter, "1", map[string]any{"repeat": 10, "until_fail": true, "run": []string{"TestFlaky"}}))
	if r.FirstLine() != "FLAKY: example.com/flaky TestFlaky failed 1 of 2 runs (1 distinct failure)" || !strings.Contains(r.Text, "ran 2 of the 10 runs asked for") {
		t.Errorf("until_fail: verdict %q\n%s", r.FirstLine(), r.Text)
	}
}

// TestRepeatCTestCrashEveryThirdRun: a C test under CTest that crashes on
// every third run (its counter file) is FLAKY with one group, the crash;
// the build runs once.
func TestRepeatCTestCrashEveryThirdRun(t *testing.T) {
	needTool(t, "cmake", "cmake")
	needTool(t, "cc", "gcc")
	c := mcptest.Connect(t, nil)
	dir := nativeprojects.Write(t, map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(crashy C)\nenable_testing()\n" +
			"add_executable(crashy crashy.c)\nadd_test(NAME crashy COMMAND crashy)\n",
		"crashy.c": crashySource,
	})
	counter := filepath.Join(t.TempDir(), "counter")
	r := c.Call("test", repeatCall(t, dir, counter, "0", map[string]any{"repeat": 6}))
	if r.Outcome != "failed" || r.FirstLine() != "FLAKY: crashy failed 2 of 6 runs (1 distinct failure)" {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	f := repeatOf(t, r)
	g := f.Tests[0].Groups
	if f.Runs != 6 || f.Failed != 2 || len(g) != 1 || g[0].Kind != "crashed" || g[0].Count != 2 || g[0].FirstRun != 3 {
		t.Fatalf("tally %+v", f)
	}
	if g[0].Site != "" && g[0].Site != "crash_here" {
		t.Errorf("crash site %q, want crash_here", g[0].Site)
	}
	if !strings.Contains(r.Text, "run 3 of 6 (shown below): CRASHED") {
		t.Errorf("the shown run is not the first crash:\n%s", r.Text)
	}
	var out buildTestOutput
	r.Decode(t, &out)
	for _, s := range out.Steps {
		if s.Name != "test" {
			t.Errorf("run 3 ran the %s step again: %+v", s.Name, out.Steps)
		}
	}
}

// crashySource crashes in crash_here on every third run, by the counter
// in the file $FLAKY_COUNTER.
const crashySource = `#include <stdio.h>
#include <stdlib.h>

static void crash_here(volatile int *p) { *p = 1; }

int main(void) {
	const char *path = getenv("FLAKY_COUNTER");
	int n = 0;
	FILE *f = fopen(path, "r");
	if (f) { if (fscanf(f, "%d", &n) != 1) n = 0; fclose(f); }
	n++;
	f = fopen(path, "w");
	if (!f) return 2;
	fprintf(f, "%d\n", n);
	fclose(f);
	if (n % 3 == 0) crash_here(NULL);
	printf("run %d ok\n", n);
	return 0;
}
`

// TestRepeatRunCrashEveryThirdRun: run with repeat: a program that
// crashes every third run is FLAKY with its crash function; until_fail
// stops at the first crash; a program that always succeeds succeeds N of N.
func TestRepeatRunCrashEveryThirdRun(t *testing.T) {
	needTool(t, "cc", "gcc")
	c := mcptest.Connect(t, nil)
	dir := nativeprojects.Write(t, map[string]string{"crashy.c": crashySource})
	if out, err := exec.Command("cc", "-g", "-O0", "-o", filepath.Join(dir, "crashy"), filepath.Join(dir, "crashy.c")).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	counter := filepath.Join(t.TempDir(), "counter")
	r := c.Call("run", repeatCall(t, dir, counter, "0", map[string]any{"program": "./crashy", "repeat": 6}))
	if r.Outcome != "failed" || r.FirstLine() != "FLAKY: crashy failed 2 of 6 runs (1 distinct failure)" || !strings.Contains(r.Text, "run 3 of 6 (shown below): CRASHED") {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	var out struct {
		Verdict struct{ Repeat *testreport.Flakiness } `json:"verdict"`
	}
	r.Decode(t, &out)
	f := out.Verdict.Repeat
	if f == nil || f.Runs != 6 || len(f.Tests) != 1 || len(f.Tests[0].Groups) != 1 || f.Tests[0].Groups[0].Count != 2 || f.Tests[0].Groups[0].FirstRun != 3 {
		t.Fatalf("tally %+v", f)
	}
	if site := f.Tests[0].Groups[0].Site; site != "" && site != "crash_here" {
		t.Errorf("crash site %q, want crash_here", site)
	}

	r = c.Call("run", repeatCall(t, dir, counter, "0", map[string]any{"program": "./crashy", "until_fail": true}))
	if r.FirstLine() != "FLAKY: crashy failed 1 of 3 runs (1 distinct failure)" || !strings.Contains(r.Text, "ran 3 of the 100 runs asked for") {
		t.Errorf("until_fail: verdict %q\n%s", r.FirstLine(), r.Text)
	}
	r = c.Call("run", map[string]any{"program": "true", "repeat": 3})
	if r.Outcome != "ok" || r.FirstLine() != "SUCCEEDED: 3 of 3 runs" {
		t.Errorf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
}
