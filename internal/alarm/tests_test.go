package alarm

import "testing"

// TestTestsRunAndPassSummary: runners' announcements and tests' result
// lines are tests running; closing count lines that count no failure are
// pass summaries; build lines, and counts with a failure, are neither.
func TestTestsRunAndPassSummary(t *testing.T) {
	run := []string{
		"collected 3 items",
		"Running 12 tests",
		"running 3 test cases",
		"    Starting 4 tests across 1 binary",
		"Executing 5 specs",
		"Test 2/5: eval",
		"Test #3 parse",
		"test_alpha ... ok",
		"[1] t_empty ........ ok",
		"test_parse (pkg.tests.ParserTest) ... FAIL",
		"tests/test_x.py::test_a PASSED                       [ 33%]",
		"== Running 2 tests ==",
	}
	for _, l := range run {
		if !TestsRun([]byte(l)) {
			t.Errorf("TestsRun(%q) = false", l)
		}
	}
	notRun := []string{
		"cc -O2 -c parse.c -o parse.o",
		"src/parse.c:12:5: error: 'x' undeclared",
		"In file included from std::vector<int>::push_back",
		"Running cmake ...",
		"test -f config.h || touch config.h",
		"Testing the waters",
		"running",
		"Run-time check failed",
	}
	for _, l := range notRun {
		if TestsRun([]byte(l)) {
			t.Errorf("TestsRun(%q) = true", l)
		}
	}
	pass := []string{
		"============================== 3 passed in 0.12s ===============================",
		"12 passed, 0 failed",
		"All tests passed",
		"all 4 checks passed",
		"OK",
		"OK (12 tests)",
		"ran 3 checks, 0 failures",
		"Result: 7 tests passed",
		"Ok:                 3   ",
		"# PASS:  3",
	}
	for _, l := range pass {
		if !PassSummary([]byte(l)) {
			t.Errorf("PassSummary(%q) = false", l)
		}
	}
	notPass := []string{
		"2 passed, 1 failed",
		"===== 1 failed, 2 passed in 0.10s =====",
		"FAILED (failures=1)",
		"compiling 3 files",
		"0 passed, 3 failed",
		"ok",
		"0 passed",
	}
	for _, l := range notPass {
		if PassSummary([]byte(l)) {
			t.Errorf("PassSummary(%q) = true", l)
		}
	}
}
