package run_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// oneInFiveModule's TestOneInFive fails on every fifth run, by a counter
// in the file $FLAKY_COUNTER; TestSteady never fails.
var oneInFiveModule = map[string]string{
	"go.mod": "module example.com/fifth\n\ngo 1.22\n",
	"fifth_test.go": `package fifth

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestOneInFive(t *testing.T) {
	path := os.Getenv("FLAKY_COUNTER")
	b, _ := os.ReadFile(path)
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	n++
	if err := os.WriteFile(path, []byte(strconv.Itoa(n)), 0o644); err != nil {
		t.Fatal(err)
	}
	if n%5 == 0 {
		t.Errorf("connection reset after %d requests", n*3)
	}
}

func TestSteady(t *testing.T) {
	if 2+2 != 4 {
		t.Fatal("arithmetic")
	}
}
`,
}

// fifthCrashSource crashes in crash_here on every fifth run, by the
// counter in the file $FLAKY_COUNTER.
var fifthCrashSource = strings.Replace(crashySource, "n % 3 == 0", "n % 5 == 0", 1)

// TestRepeatOneInFive (issue 46's acceptance): a Go test that fails one
// run in five and a C test under CTest that crashes one run in five are
// FLAKY, 2 of 10 runs, with their one signature (the Go failure's message,
// numbers normalised; the C crash's function) and the first failing run's
// output; a stable test passes 10 of 10.
func TestRepeatOneInFive(t *testing.T) {
	needTool(t, "go", "golang-go")
	needTool(t, "cmake", "cmake")
	needTool(t, "cc", "gcc")
	c := mcptest.Connect(t, nil)
	counter := filepath.Join(t.TempDir(), "counter")

	dir := nativeprojects.Write(t, oneInFiveModule)
	r := c.Call("test", repeatCall(t, dir, counter, "0", map[string]any{"repeat": 10}))
	const goVerdict = "FLAKY: example.com/fifth TestOneInFive failed 2 of 10 runs (1 distinct failure)"
	if r.Outcome != "failed" || r.FirstLine() != goVerdict {
		t.Fatalf("outcome %q verdict %q, want %q\n%s", r.Outcome, r.FirstLine(), goVerdict, r.Text)
	}
	g := flakyGroup(t, r, "TestOneInFive", 10, 2, 5)
	if !strings.HasPrefix(g.Signature, "example.com/fifth TestOneInFive | failed | ") || !strings.HasSuffix(g.Signature, "connection reset after N requests") ||
		!strings.Contains(g.Message, "connection reset after 15 requests") || g.FirstOutput == "" {
		t.Errorf("the Go test's failure: %+v", g)
	}
	if !strings.Contains(r.Text, "connection reset after 15 requests") {
		t.Errorf("the answer does not show the failure:\n%s", r.Text)
	}

	r = c.Call("test", repeatCall(t, dir, counter, "0", map[string]any{"repeat": 10, "run": []string{"TestSteady"}}))
	if r.Outcome != "ok" || r.FirstLine() != "TESTS PASSED: 10 of 10 runs" {
		t.Errorf("the stable test: outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}

	dir = nativeprojects.Write(t, map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(fifth C)\nenable_testing()\n" +
			"add_executable(crashy crashy.c)\nadd_test(NAME crashy COMMAND crashy)\n",
		"crashy.c": fifthCrashSource,
	})
	r = c.Call("test", repeatCall(t, dir, counter, "0", map[string]any{"repeat": 10}))
	if r.Outcome != "failed" || r.FirstLine() != "FLAKY: crashy failed 2 of 10 runs (1 distinct failure)" {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	g = flakyGroup(t, r, "crashy", 10, 2, 5)
	if g.Kind != "crashed" || g.Site != "crash_here" || g.Signature != "crashy | crashed | crash_here" || g.FirstOutput == "" {
		t.Errorf("the C test's crash: %+v", g)
	}
	if !strings.Contains(r.Text, "run 5 of 10 (shown below): CRASHED") {
		t.Errorf("the shown run is not the first crash:\n%s", r.Text)
	}
}

// flakyGroup checks that test name alone is in r's tally, failing
// failed of runs in one group first seen at run first, and returns it.
func flakyGroup(t *testing.T, r mcptest.Result, name string, runs, failed, first int) testreport.FailureGroup {
	t.Helper()
	f := repeatOf(t, r)
	if f.Runs != runs || len(f.Tests) != 1 || f.Tests[0].Name != name || f.Tests[0].Failed != failed || len(f.Tests[0].Groups) != 1 {
		t.Fatalf("tally %+v", f)
	}
	g := f.Tests[0].Groups[0]
	if g.Count != failed || g.FirstRun != first {
		t.Errorf("group %+v: want %d failures, the first at run %d", g, failed, first)
	}
	t.Logf("%s: signature %q", name, g.Signature)
	return g
}
