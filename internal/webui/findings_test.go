package webui

import (
	"encoding/json"
	"testing"
)

// TestFindingsOfARun: a run's kept answer gives its core, its backtrace
// with the verdict's crash frame marked, and its evidence.
func TestFindingsOfARun(t *testing.T) {
	f := findingsOf(json.RawMessage(`{"verdict":{"status":"crash","line":"CRASHED (SIGSEGV) in crash_here at segv.c:5",
		"evidence":[{"kind":"core_dump","path":"/s/cores/o-1/core.9"}],"crash_frame":{"function":"crash_here","file":"segv.c","line":5}},
		"core":"/s/cores/o-1/core.9","backtrace":[{"index":0,"function":"crash_here","file":"/src/segv.c","line":5},{"index":1,"function":"main","file":"/src/segv.c","line":9}]}`))
	if f == nil || f.Core != "/s/cores/o-1/core.9" || len(f.Evidence) != 1 || len(f.Frames) != 2 {
		t.Fatalf("findings = %+v", f)
	}
	if !f.Frames[0].Project || f.Frames[1].Project {
		t.Errorf("project frames: %+v", f.Frames)
	}
	if findingsOf(nil) != nil || findingsOf(json.RawMessage(`[1]`)) != nil {
		t.Error("no answer, or one that is not an object, gives findings")
	}
}

// TestFindingsOfATestRun: failures come first (crashed, failed, errored,
// then the rest, each in the order they ran), the strip keeps the order
// per suite, and a result bundle's failure the log missed is added.
func TestFindingsOfATestRun(t *testing.T) {
	f := findingsOf(json.RawMessage(`{"verdict":"TESTS FAILED: 2 of 4 failed","tests":{"cases":[
		{"suite":"calc","name":"TestA","status":"passed"},
		{"suite":"calc","name":"TestB","status":"failed","message":"got 0","file":"calc_test.go","line":7},
		{"suite":"io","name":"TestC","status":"skipped"},
		{"suite":"io","name":"TestD","status":"crashed","message":"panic"}],"totals":{"total":4,"passed":1,"failed":1,"skipped":1,"crashed":1}},
		"xcresult":{"failures":[{"test_name":"TestB","text":"dup"},{"test_name":"testUI","text":"XCTAssert failed","location":"UITests.swift:12"}]},
		"diagnostics":[{"kind":"error","file":"a.go","line":3,"message":"undefined: x"}]}`))
	if f == nil || f.Tests == nil {
		t.Fatalf("findings = %+v", f)
	}
	var order []string
	for _, c := range f.Tests.Cases {
		order = append(order, c.Name+":"+c.Status)
	}
	want := jsonString([]string{"TestD:crashed", "TestB:failed", "testUI:failed", "TestA:passed", "TestC:skipped"})
	if got := jsonString(order); got != want {
		t.Errorf("cases in order %s, want %s", got, want)
	}
	if x := f.Tests.Cases[2]; x.File != "UITests.swift" || x.Line != 12 {
		t.Errorf("the bundle's failure: %+v", x)
	}
	if got := jsonString(f.Tests.Suites); got != `[{"name":"calc","cells":[{"name":"TestA","status":"passed"},{"name":"TestB","status":"failed"}]},`+
		`{"name":"io","cells":[{"name":"TestC","status":"skipped"},{"name":"TestD","status":"crashed"}]},{"name":"tests","cells":[{"name":"testUI","status":"failed"}]}]` {
		t.Errorf("suites = %s", got)
	}
	if len(f.Diagnostics) != 1 || f.Diagnostics[0].Line != 3 {
		t.Errorf("diagnostics = %+v", f.Diagnostics)
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestFindingsOfAHangAndReports: a hang's stuck stacks come with their
// frames, the place it waited marked; crash reports of the app and of its
// launch are listed.
func TestFindingsOfAHangAndReports(t *testing.T) {
	f := findingsOf(json.RawMessage(`{"verdict":"TIMED OUT","hang":{"stacks":[
		{"kind":"goroutine","id":1,"state":"running","frames":[{"index":0,"function":"main.main","file":"main.go","line":3}]},
		{"kind":"goroutine","id":7,"state":"chan receive","frames":[{"index":0,"function":"runtime.gopark"},{"index":1,"function":"demo.wait","file":"/p/wait.go","line":12}]}],
		"stuck":[{"stack":1,"kind":"goroutine","id":7,"reason":"chan receive","test":"TestWait","frame":{"function":"demo.wait","file":"wait.go","line":12}}]},
		"crash_reports":[{"path":"/r/a.ips","summary":"App crashed: EXC_BAD_ACCESS","role":"app"}],
		"launch":{"crash_reports":[{"path":"/r/b.ips","summary":"launch crash"}]}}`))
	if f == nil || len(f.Stuck) != 1 || len(f.Reports) != 2 {
		t.Fatalf("findings = %+v", f)
	}
	s := f.Stuck[0]
	if s.Stack != "goroutine 7 (chan receive)" || s.Reason != "chan receive" || s.Test != "TestWait" || len(s.Frames) != 2 || s.Frames[0].Project || !s.Frames[1].Project {
		t.Errorf("stuck = %+v", s)
	}
}
