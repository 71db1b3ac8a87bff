package testreport

import (
	"strings"
	"testing"
)

// TestTAP reads real TAP: Perl's Test::More run directly and under prove
// (TAP::Harness 3.44), C programs printing TAP, node --test's TAP 13
// (testdata/frameworks/tap/README).
func TestTAP(t *testing.T) {
	const dir = "testdata/frameworks/tap/"
	twoAndTwo := caseWant{Name: "two and two", Status: Failed, File: "t/02-fail.t", Line: 4,
		Message: "Failed test 'two and two' at t/02-fail.t line 4\ngot: '4'\nexpected: '5'"}
	fails := []caseWant{twoAndTwo,
		{Name: "test 3", Status: Skipped, Message: "no network here"},
		// A failed TODO test is expected.
		{Name: "future feature", Status: Passed, Message: "TODO not written yet"},
		// The subtest's failure is its parent's.
		{Name: "nested", Status: Failed, File: "t/02-fail.t", Line: 17, Message: "failed subtests: inner two"},
		{Name: "last", Status: Passed}}
	tests := []struct {
		file string
		want fwWant
	}{
		{"tap-raw-pass.log", fwWant{status: Passed, totals: Totals{Total: 3, Passed: 3},
			cases: []caseWant{{Suite: FormatTAP, Name: "adds", Status: Passed}}}},
		// Test::More with stderr: a plan at the end, SKIP, TODO, a subtest.
		{"tap-raw-fail.log", fwWant{status: Failed, totals: Totals{Total: 6, Passed: 3, Failed: 2, Skipped: 1}, cases: fails}},
		// Planned 5, exit(0) after 3.
		{"tap-raw-short.log", fwWant{status: Errored, totals: Totals{Total: 3, Passed: 3},
			cut: []CutShort{{Suite: FormatTAP, Test: "test 4", How: "planned 5 tests, 3 ran; the last was test 3 (parses)"}}}},
		// No plan: the results, then exit(0).
		{"tap-raw-noplan.log", fwWant{status: Errored, totals: Totals{Total: 2, Passed: 2},
			cut: []CutShort{{Suite: FormatTAP, How: "no plan (1..N) after the results; the last was test 2 (reads config)"}}}},
		// abort() after test 1, run by sh: "Aborted".
		{"tap-raw-abort.log", fwWant{status: Crashed, totals: Totals{Total: 2, Passed: 1, Crashed: 1},
			cases: []caseWant{{Name: "test 2", Status: Crashed, Message: "the test program died: SIGABRT (Aborted): planned 3 tests, 1 ran"}},
			cut:   []CutShort{{Suite: FormatTAP, Test: "test 2", How: "SIGABRT (Aborted): planned 3 tests, 1 ran; the last was test 1 (starts)"}}}},
		{"tap-raw-bail.log", fwWant{status: Errored, totals: Totals{Total: 1, Passed: 1},
			cut: []CutShort{{Suite: FormatTAP, Test: "test 2", How: "Bail out! database is not running; planned 3 tests, 1 ran"}}}},
		// node --test's TAP 13: YAML blocks give the site and the message.
		{"tap13-node.log", fwWant{status: Failed, totals: Totals{Total: 6, Passed: 3, Failed: 2, Skipped: 1},
			cases: []caseWant{
				{Name: "fails an assertion", Status: Failed, File: "/src/node/math.test.mjs", Line: 5, Message: "Expected values to be strictly equal:\n\n4 !== 5"},
				{Name: "skipped", Status: Skipped, Message: "not on this machine"},
				{Name: "todo", Status: Passed, Message: "TODO not written yet"},
				{Name: "nested", Status: Failed, File: "/src/node/math.test.mjs", Line: 8, Message: "1 subtest failed\nfailed subtests: inner two"}}}},
		// prove -v: each test's result; the test file is the suite.
		{"tap-prove-v-pass.log", fwWant{status: Passed, totals: Totals{Total: 3, Passed: 3}, tool: tally(3, -1, -1, -1, ""),
			cases: []caseWant{{Suite: "t/01-pass.t", Name: "matches", Status: Passed}}}},
		{"tap-prove-v-fail.log", fwWant{status: Failed, totals: Totals{Total: 9, Passed: 6, Failed: 2, Skipped: 1},
			tool: tally(9, -1, -1, -1, "tests failed"), cases: fails}},
		// A segfault (prove's report: "Wstat: 11 (Signal: SEGV)"), exit(0)
		// after 3 of 5, die after 1 of 3, no plan twice (exit 0, and
		// Test::More's exit 254). The crashed test is one prove does not
		// count: 14 cases, prove's 13 tests.
		{"tap-prove-v-crash.log", fwWant{status: Crashed, totals: Totals{Total: 14, Passed: 13, Crashed: 1},
			tool: tally(13, -1, -1, -1, "tests failed"),
			cases: []caseWant{{Suite: "t/03-segv.t", Name: "test 3", Status: Crashed,
				Message: "the test program died: SIGSEGV (Wstat: 11): planned 4 tests, 2 ran; the last was test 2 (reads config)"}},
			cut: []CutShort{
				{Suite: "t/03-segv.t", Test: "test 3", How: "SIGSEGV (Wstat: 11): planned 4 tests, 2 ran"},
				{Suite: "t/04-short.t", Test: "test 4", How: "planned 5 tests, 3 ran; the last was test 3 (parses)"},
				{Suite: "t/06-die.t", Test: "test 2", How: "planned 3 tests, 1 ran; the last was test 1 (loads); exit status 255"},
				{Suite: "t/07-noplan.t", How: "no plan (1..N) after the results"},
				{Suite: "t/08-exit0.t", How: "no plan (1..N) after the results; the last was test 2 (reads); exit status 254"}},
			note: "count mismatch: the tool reports 13 tests, 14 parsed"}},
		{"tap-prove-v-bail.log", fwWant{status: Errored, totals: Totals{Total: 4, Passed: 4}, tool: tally(4, -1, -1, -1, "tests failed"),
			cut: []CutShort{{Suite: "t/05-bail.t", Test: "test 2", How: "planned 3 tests, 1 ran; the last was test 1 (connects); exit status 255"}}}},
		// prove without -v: each test file is a case, by prove's verdict
		// and its Test Summary Report.
		{"tap-prove-pass.log", fwWant{status: Passed, totals: Totals{Total: 1, Passed: 1}, tool: tally(1, -1, -1, -1, ""),
			cases: []caseWant{{Suite: FormatTAP, Name: "t/01-pass.t", Status: Passed}}, note: "prove ran without -v"}},
		{"tap-prove-fail.log", fwWant{status: Failed, totals: Totals{Total: 2, Passed: 1, Failed: 1}, tool: tally(2, -1, -1, -1, "tests failed"),
			cases: []caseWant{{Name: "t/02-fail.t", Status: Failed, File: "t/02-fail.t", Line: 4,
				Message: "Failed test 'two and two' at t/02-fail.t line 4\ngot: '4'\nexpected: '5'\nfailed tests: 2, 5"}}}},
		{"tap-prove-crash.log", fwWant{status: Crashed, totals: Totals{Total: 6, Passed: 1, Errored: 4, Crashed: 1},
			tool: tally(6, -1, -1, -1, "tests failed"),
			cases: []caseWant{
				{Name: "t/03-segv.t", Status: Crashed, Message: "the test program died: SIGSEGV (Wstat: 11): Bad plan. You planned 4 tests but ran 2."},
				{Name: "t/04-short.t", Status: Errored, Message: "Bad plan. You planned 5 tests but ran 3."},
				{Name: "t/07-noplan.t", Status: Errored, Message: "No plan found in TAP output"}},
			cut: []CutShort{
				{Suite: "t/03-segv.t", Test: "test 3", How: "SIGSEGV (Wstat: 11): Bad plan. You planned 4 tests but ran 2."},
				{Suite: "t/04-short.t", Test: "test 4", How: "Bad plan. You planned 5 tests but ran 3."},
				{Suite: "t/06-die.t", Test: "test 2", How: "Bad plan. You planned 3 tests but ran 1; exit status 255"},
				{Suite: "t/07-noplan.t", How: "No plan found in TAP output"},
				{Suite: "t/08-exit0.t", How: "No plan found in TAP output; exit status 254"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) { checkFramework(t, FormatTAP, dir+tt.file, tt.want) })
	}
}

// TestTAPStreams: raw TAP of programs run one after another (a Makefile's
// test target): each stream is judged by its own plan.
func TestTAPStreams(t *testing.T) {
	tests := []struct {
		name, in string
		status   Status
		cut      []CutShort
	}{
		{"two complete", "1..2\nok 1 - a\nok 2 - b\n1..1\nok 1 - c\n", Passed, nil},
		{"plan last, then plan first", "ok 1 - a\n1..1\n1..1\nok 1 - b\n", Passed, nil},
		{"the first cut short", "1..3\nok 1 - a\nTAP version 13\n1..1\nok 1 - b\n", Errored,
			[]CutShort{{Suite: FormatTAP, Test: "test 2", How: "planned 3 tests, 1 ran"}}},
		{"skip all", "1..0 # SKIP no database\n", NoTests, nil},
		// A result after a plan met is the next program's, which has no plan.
		{"more than planned", "1..1\nok 1\nok 2\n", Errored, []CutShort{{Suite: FormatTAP, How: "no plan"}}},
		{"not ok without a number", "1..2\nok\nnot ok - broken\n", Failed, nil},
		{"a sanitizer's report after the last result", "1..1\nok 1 - a\n==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x1\n", Crashed, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Parse("prove", strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status != tt.status || len(rep.CutShort) != len(tt.cut) {
				t.Fatalf("status %s, cut short %+v, cases %+v; want %s, %+v", rep.Status, rep.CutShort, rep.Cases, tt.status, tt.cut)
			}
			for i, cs := range rep.CutShort {
				if cs.Suite != tt.cut[i].Suite || cs.Test != tt.cut[i].Test || !strings.Contains(cs.How, tt.cut[i].How) {
					t.Errorf("cut short %+v, want %+v", cs, tt.cut[i])
				}
			}
		})
	}
}
