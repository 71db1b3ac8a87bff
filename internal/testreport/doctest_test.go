package testreport

import (
	"strings"
	"testing"
)

// TestDoctest reads doctest programs' real output (Debian's doctest
// 2.4.9; testdata/frameworks/doctest/README).
func TestDoctest(t *testing.T) {
	const dir = "testdata/frameworks/doctest/"
	failing := caseWant{Suite: FormatDoctest, Name: "fails an assertion", Status: Failed, File: "tests.cpp", Line: 14,
		Message: "CHECK( add(2, 2) == 5 ) is NOT correct!\nvalues: CHECK( 4 == 5 )\nREQUIRE( add(1, 1) == 3 ) is NOT correct!"}
	cut := []CutShort{{Suite: FormatDoctest, How: "the output ended before doctest's summary"}}
	tests := []struct {
		file string
		want fwWant
	}{
		// doctest counts the test cases its filter left out as skipped.
		{"doctest-pass.log", fwWant{status: Passed, totals: Totals{Total: 2, Passed: 2},
			tool: tally(2, 2, 0, 7, ""), note: "2 passing tests are not named"}},
		{"doctest-fail.log", fwWant{status: Failed, totals: Totals{Total: 4, Passed: 2, Failed: 2},
			tool: tally(4, 2, 2, 5, "FAILURE"),
			cases: []caseWant{failing, {Name: "subcases", Status: Failed, File: "tests.cpp", Line: 20,
				Message: "in subcase second:\nCHECK( add(1, 2) == 4 ) is NOT correct!\nvalues: CHECK( 3 == 4 )"}}}},
		// A test case marked skip, run with --no-skip.
		{"doctest-noskip.log", fwWant{status: Failed, totals: Totals{Total: 2, Passed: 1, Failed: 1},
			tool: tally(2, 1, 1, 7, "FAILURE"), cases: []caseWant{{Name: "skipped", Status: Failed, File: "tests.cpp", Line: 23, Message: "CHECK( false ) is NOT correct!"}}}},
		// -s names the passing test case.
		{"doctest-success.log", fwWant{status: Failed, totals: Totals{Total: 2, Passed: 1, Failed: 1},
			tool: tally(2, 1, 1, 7, "FAILURE"), cases: []caseWant{{Name: "adds numbers", Status: Passed}, failing}}},
		{"doctest-segv.log", fwWant{status: Crashed, totals: Totals{Total: 2, Passed: 1, Crashed: 1},
			tool:  tally(2, 1, 1, 7, "FAILURE"),
			cases: []caseWant{{Name: "segfaults", Status: Crashed, File: "tests.cpp", Line: 25, Message: "SIGSEGV - Segmentation violation signal"}}}},
		{"doctest-abort.log", fwWant{status: Crashed, totals: Totals{Total: 2, Passed: 1, Crashed: 1},
			tool:  tally(2, 1, 1, 7, "FAILURE"),
			cases: []caseWant{{Name: "aborts", Status: Crashed, File: "tests.cpp", Line: 30, Message: "SIGABRT - Abort (abnormal termination) signal"}}}},
		// An exception: doctest catches it, the test case fails.
		{"doctest-throw.log", fwWant{status: Failed, totals: Totals{Total: 3, Passed: 2, Failed: 1},
			tool:  tally(3, 2, 1, 6, "FAILURE"),
			cases: []caseWant{{Name: "throws", Status: Failed, File: "tests.cpp", Line: 34, Message: "test case THREW exception: boom from throws"}}}},
		// exit(0) in a test case: no summary.
		{"doctest-exit0.log", fwWant{status: Failed, totals: Totals{Total: 1, Failed: 1}, cases: []caseWant{failing}, cut: cut}},
		// -d names each test case that finished.
		{"doctest-durations-exit0.log", fwWant{status: Failed, totals: Totals{Total: 2, Passed: 1, Failed: 1},
			cases: []caseWant{{Name: "adds numbers", Status: Passed}, failing}, cut: cut}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) { checkFramework(t, FormatDoctest, dir+tt.file, tt.want) })
	}
}

// TestDoctestSuite: a test case in a TEST_SUITE is of that suite.
func TestDoctestSuite(t *testing.T) {
	log := "[doctest] doctest version is \"2.4.9\"\n" + strings.Repeat("=", 79) + "\nt.cpp:5:\nTEST SUITE: math\nTEST CASE:  divides\n\n" +
		"t.cpp:7: ERROR: CHECK( 1 / 1 == 2 ) is NOT correct!\n  values: CHECK( 1 == 2 )\n\n" + strings.Repeat("=", 79) +
		"\n[doctest] test cases: 1 | 0 passed | 1 failed | 0 skipped\n[doctest] Status: FAILURE!\n"
	rep, err := Parse(FormatDoctest, strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 1 || rep.Cases[0].Suite != "math" || rep.Cases[0].Name != "divides" || rep.Cases[0].Line != 7 || rep.Status != Failed {
		t.Errorf("cases %+v, status %s", rep.Cases, rep.Status)
	}
}
