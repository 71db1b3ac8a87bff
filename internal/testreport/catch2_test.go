package testreport

import (
	"strings"
	"testing"
)

// TestCatch2 reads Catch2 programs' real output, v2 (Debian's 2.13.10)
// and v3 (3.7.1), default and -s (testdata/frameworks/catch2/README).
func TestCatch2(t *testing.T) {
	const dir = "testdata/frameworks/catch2/"
	const unnamed = "passing tests are not named in the output"
	failing := caseWant{Suite: FormatCatch2, Name: "fails an assertion", Status: Failed, File: "tests.cpp", Line: 15,
		Message: "CHECK( x == 5 )\nwith expansion:\n  4 == 5\nREQUIRE( add(1, 1) == 3 )"}
	sections := caseWant{Name: "sections", Status: Failed, File: "tests.cpp", Line: 21,
		Message: "in section second:\n  REQUIRE( add(1, 2) == 4 )\nwith expansion:\n  3 == 4"}
	tests := []struct {
		file string
		want fwWant
	}{
		// v2 prints nothing but its summary for a passing run.
		{"catch2-v2-pass.log", fwWant{status: Passed, totals: Totals{Total: 2, Passed: 2},
			tool: tally(2, 2, 0, -1, ""), note: "2 " + unnamed}},
		{"catch2-v3-pass.log", fwWant{status: Passed, totals: Totals{Total: 2, Passed: 2},
			tool: tally(2, 2, 0, -1, ""), note: "2 " + unnamed}},
		{"catch2-v2-fail.log", fwWant{status: Failed, totals: Totals{Total: 4, Passed: 2, Failed: 2},
			tool: tally(4, 2, 2, 0, "test cases failed"), cases: []caseWant{failing, sections}, note: "2 " + unnamed}},
		// v3 with SKIP().
		{"catch2-v3-fail.log", fwWant{status: Failed, totals: Totals{Total: 5, Passed: 2, Failed: 2, Skipped: 1},
			tool:  tally(5, 2, 2, 1, "test cases failed"),
			cases: []caseWant{failing, sections, {Name: "skips itself", Status: Skipped, Message: "not on this machine"}}}},
		// -s names the passing test case.
		{"catch2-v2-success.log", fwWant{status: Failed, totals: Totals{Total: 2, Passed: 1, Failed: 1},
			tool: tally(2, 1, 1, 0, "test cases failed"), cases: []caseWant{{Name: "adds numbers", Status: Passed}, failing}}},
		{"catch2-v3-success.log", fwWant{status: Failed, totals: Totals{Total: 2, Passed: 1, Failed: 1},
			tool: tally(2, 1, 1, 0, "test cases failed"), cases: []caseWant{{Name: "adds numbers", Status: Passed}, failing}}},
		// --durations yes: its lines name sections too; the totals are the summary's.
		{"catch2-v3-durations.log", fwWant{status: Failed, totals: Totals{Total: 3, Passed: 2, Failed: 1},
			tool: tally(3, 2, 1, 0, "test cases failed"), cases: []caseWant{failing}}},
		// A signal: Catch2 reports it as the test case's failure, prints
		// its summary and the program dies.
		{"catch2-v2-segv.log", fwWant{status: Crashed, totals: Totals{Total: 2, Passed: 1, Crashed: 1},
			tool:  tally(2, 1, 1, 0, "test cases failed"),
			cases: []caseWant{{Name: "segfaults", Status: Crashed, File: "tests.cpp", Line: 24, Message: "SIGSEGV - Segmentation violation signal"}}}},
		{"catch2-v3-segv.log", fwWant{status: Crashed, totals: Totals{Total: 2, Passed: 1, Crashed: 1},
			tool:  tally(2, 1, 1, 0, "test cases failed"),
			cases: []caseWant{{Name: "segfaults", Status: Crashed, File: "tests.cpp", Line: 24, Message: "SIGSEGV - Segmentation violation signal"}}}},
		{"catch2-v3-abort.log", fwWant{status: Crashed, totals: Totals{Total: 2, Passed: 1, Crashed: 1},
			tool:  tally(2, 1, 1, 0, "test cases failed"),
			cases: []caseWant{{Name: "aborts", Status: Crashed, File: "tests.cpp", Line: 29, Message: "SIGABRT - Abort (abnormal termination) signal"}}}},
		// An exception: Catch2 catches it, the test case fails.
		{"catch2-v3-throw.log", fwWant{status: Failed, totals: Totals{Total: 3, Passed: 2, Failed: 1},
			tool:  tally(3, 2, 1, 0, "test cases failed"),
			cases: []caseWant{{Name: "throws", Status: Failed, File: "tests.cpp", Line: 33, Message: "due to unexpected exception with message:\n  boom from throws"}}}},
		// exit(0) in a test case: no summary. v3 had printed its first line
		// only; v2 a failure of an earlier test case.
		{"catch2-v3-exit0.log", fwWant{status: Errored,
			cut: []CutShort{{Suite: FormatCatch2, How: "the output ended before Catch2's summary"}}}},
		{"catch2-v2-exit0.log", fwWant{status: Failed, totals: Totals{Total: 1, Failed: 1}, cases: []caseWant{failing},
			cut: []CutShort{{Suite: FormatCatch2, How: "the output ended before Catch2's summary"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) { checkFramework(t, FormatCatch2, dir+tt.file, tt.want) })
	}
}

// TestCatch2LongName: Catch2 wraps a long test case name in its header;
// the lines are one name, and the section under it stays a section.
func TestCatch2LongName(t *testing.T) {
	dashes := strings.Repeat("-", 79)
	log := "\n" + strings.Repeat("~", 79) + "\nt is a Catch2 v3.7.1 host application.\nRun with -? for options\n\n" +
		dashes + "\nparses a configuration file that has every option set and a comment on each of\nits lines\n  the second section\n" +
		dashes + "\nt.cpp:40\n" + strings.Repeat(".", 79) + "\n\nt.cpp:44: FAILED:\n  REQUIRE( ok )\nwith expansion:\n  false\n\n" +
		strings.Repeat("=", 79) + "\ntest cases: 1 | 1 failed\nassertions: 1 | 1 failed\n\n"
	rep, err := Parse("catch", strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	want := "parses a configuration file that has every option set and a comment on each of its lines"
	if len(rep.Cases) != 1 || rep.Cases[0].Name != want || !strings.HasPrefix(rep.Cases[0].Message, "in section the second section:") ||
		rep.Status != Failed || rep.CountMismatch {
		t.Errorf("cases %+v, status %s, notes %q", rep.Cases, rep.Status, rep.Notes)
	}
}
