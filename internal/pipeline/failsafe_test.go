package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/alarm"
	"github.com/triage-dev/triage/internal/toolchain"
)

// unknownRunner is the output of a test runner no reader knows, around one
// line that says how a test ended.
func unknownRunner(line string) string {
	return "suite: parser\n[1] t_empty ........ ok\n[2] t_flow ........ " + line + "\n[3] t_done ........ ok\ndone\n"
}

// TestFailSafeAnalyze: a log no reader knows is never a success, through
// `triage filter`, while a line holds a word of the alarm table in a
// runner's shape; it is named with its line number.
func TestFailSafeAnalyze(t *testing.T) {
	for _, tt := range []struct {
		line   string
		status Status
	}{
		{"killed by signal 11 SIGSEGV", Crashed},
		{"terminated by signal 6", Crashed},
		{"***Timeout 30.06 sec", Failed},
		{"TIMEOUT 30.16s", Failed},
		{"FAIL 0.11s exit status 1", Failed},
		{"CRASH!", Crashed},
		{"SIGABRT", Crashed},
		{"Fail: 5", Failed},
		{"1 failed", Failed},
	} {
		res, err := Analyze(strings.NewReader(unknownRunner(tt.line)), AnalyzeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != tt.status || !strings.Contains(res.Line, "line 3 of the log says") || !strings.Contains(res.Line, tt.line) {
			t.Errorf("%q: %s %q, want %s naming line 3", tt.line, res.Status, res.Line, tt.status)
		}
	}
	res, err := Analyze(strings.NewReader(unknownRunner("ok")+"all 3 tests passed\nFail: 0\nExpected Fail: 1\n"), AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Succeeded || !strings.Contains(res.Line, `line 6 says "all 3 tests passed"`) {
		t.Errorf("a log with no alarm and a summary: %s %q, want a success by its summary", res.Status, res.Line)
	}
}

// TestFailSafeTestsWithoutSummary: a log no reader knows that shows tests
// running, in any runner's words, is no success without a closing count
// line after them that says they passed; a build log is judged as one.
func TestFailSafeTestsWithoutSummary(t *testing.T) {
	for _, tt := range []struct {
		log, want string
		ok        bool
	}{
		{unknownRunner("ok"), `FAILED: line 2 of the log shows tests running ("[1] t_empty ........ ok")`, false},
		{"collected 3 items\n\nt.py::test_a PASSED\n", `FAILED: line 1 of the log shows tests running ("collected 3 items")`, false},
		{"collected 3 items\n\nt.py ...\n===== 3 passed in 0.01s =====\n", `TESTS PASSED by the log's own summary: line 4 says "3 passed in 0.01s"`, true},
		{"3 passed\nRunning 2 tests\n", `FAILED: line 2 of the log shows tests running`, false}, // a summary before the tests vouches for none
		{"cc -c a.c\ncc -o a a.o\n", "BUILD SUCCEEDED", true},
	} {
		res, err := Analyze(strings.NewReader(tt.log), AnalyzeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status.OK() != tt.ok || !strings.HasPrefix(res.Line, tt.want) {
			t.Errorf("%q: %s %q, want %q", tt.log, res.Status, res.Line, tt.want)
		}
	}
}

// TestFailSafeRun: a test command that exits 0 with output no reader knows
// is not a success when the output says a test was killed; a build whose
// steps exited 0 is judged by them.
func TestFailSafeRun(t *testing.T) {
	out := unknownRunner("killed by signal 11 SIGSEGV")
	test := toolchain.Step{Name: toolchain.StepTest, Argv: []string{"printf", "%s", out}}
	res, err := Run(context.Background(), Request{Kind: KindTest, Steps: []toolchain.Step{test}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Crashed || !strings.Contains(res.Line, "killed by signal 11 SIGSEGV") {
		t.Errorf("test: %s %q, want crashed naming the line", res.Status, res.Line)
	}
	build := toolchain.Step{Name: toolchain.StepBuild, Argv: []string{"printf", "%s", "cc -DFAIL_ON_X -c x.c\nchecking for SIGSEGV handling... yes\n"}}
	res, err = Run(context.Background(), Request{Kind: KindBuild, Steps: []toolchain.Step{build}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Succeeded {
		t.Errorf("build: %s %q, want a success", res.Status, res.Line)
	}
}

// TestFailSafeEveryWord: `triage filter` is never a success on a log that
// holds any line of the alarm table's examples, one word of the table each,
// whatever reader takes the log.
func TestFailSafeEveryWord(t *testing.T) {
	for _, ex := range alarm.Says {
		log := "starting the suite\n" + ex.Line + "\nsuite finished\n"
		res, err := Analyze(strings.NewReader(log), AnalyzeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status.OK() {
			t.Errorf("%q (%s): %s %q, want no success", ex.Line, ex.Word, res.Status, res.Line)
		}
	}
}
