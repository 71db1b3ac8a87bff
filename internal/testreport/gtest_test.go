package testreport

import (
	"strings"
	"testing"
)

// TestGTest reads GoogleTest programs' real output
// (testdata/frameworks/gtest/README): results, failure sites, the tally,
// and the shapes of a program that ended in a test.
func TestGTest(t *testing.T) {
	const dir = "testdata/frameworks/gtest/"
	adds := caseWant{Name: "Math.Adds", Status: Passed}
	tests := []struct {
		file string
		want fwWant
	}{
		{"gtest-pass.log", fwWant{status: Passed, totals: Totals{Total: 2, Passed: 2},
			tool:  tally(2, 2, 0, 0, ""),
			cases: []caseWant{adds, {Name: "Later.Runs", Status: Passed}}}},
		// EXPECT_EQ and EXPECT_TRUE failing in Math.Fails; GTEST_SKIP.
		{"gtest-fail.log", fwWant{status: Failed, totals: Totals{Total: 4, Passed: 2, Failed: 1, Skipped: 1},
			tool: tally(4, 2, 1, 1, "1 FAILED TEST"),
			cases: []caseWant{adds,
				{Suite: FormatGTest, Name: "Math.Fails", Status: Failed, File: "math_test.cc", Line: 9,
					Message: "math_test.cc:9: Failure\nExpected equality of these values:\n  add(2, 2)\n    Which is: 4\n  5\ntwo and two\nmath_test.cc:10: Failure"},
				{Name: "Math.Skipped", Status: Skipped, File: "math_test.cc", Line: 12, Message: "not on this machine"}}}},
		// An exception thrown in a test: GoogleTest catches it, the test fails.
		{"gtest-throw.log", fwWant{status: Failed, totals: Totals{Total: 3, Passed: 2, Failed: 1},
			tool:  tally(3, 2, 1, 0, "1 FAILED TEST"),
			cases: []caseWant{{Name: "Crash.Throws", Status: Failed, Message: `C++ exception with description "boom from Throws" thrown in the test body.`}}}},
		// A segfault, the program run directly: its output just stops.
		{"gtest-segv.log", fwWant{status: Errored, totals: Totals{Total: 2, Passed: 1, Errored: 1},
			cases: []caseWant{adds, {Name: "Crash.Segv", Status: Errored, Message: "the test did not finish"}},
			cut:   []CutShort{{Suite: FormatGTest, Test: "Crash.Segv", How: "the output ended before GoogleTest's summary"}}}},
		// The same under make test: the shell says how it ended.
		{"gtest-segv-make.log", fwWant{status: Crashed, totals: Totals{Total: 2, Passed: 1, Crashed: 1},
			cases: []caseWant{{Name: "Crash.Segv", Status: Crashed, Message: "SIGSEGV (Segmentation fault)"}},
			cut:   []CutShort{{Suite: FormatGTest, Test: "Crash.Segv", How: "SIGSEGV (Segmentation fault), before GoogleTest's summary"}}}},
		{"gtest-abort-make.log", fwWant{status: Crashed, totals: Totals{Total: 2, Passed: 1, Crashed: 1},
			cases: []caseWant{{Name: "Crash.Abort", Status: Crashed, Message: "SIGABRT (Aborted)"}},
			cut:   []CutShort{{Suite: FormatGTest, Test: "Crash.Abort", How: "SIGABRT"}}}},
		// exit(0) in a test: the program "passes", its output stops.
		{"gtest-exit0.log", fwWant{status: Errored, totals: Totals{Total: 2, Passed: 1, Errored: 1},
			cases: []caseWant{{Name: "Crash.ExitZero", Status: Errored, Message: "exit(0) in the test, or a crash"}},
			cut:   []CutShort{{Suite: FormatGTest, Test: "Crash.ExitZero", How: "the output ended"}}}},
		// AddressSanitizer's report in Heap.Overflow: the site is the
		// report's first frame in the program's code.
		{"gtest-asan.log", fwWant{status: Crashed, totals: Totals{Total: 2, Passed: 1, Crashed: 1},
			cases: []caseWant{{Name: "Heap.Overflow", Status: Crashed, File: "/src/gtest/asan_test.cc", Line: 3,
				Message: "AddressSanitizer: heap-buffer-overflow in at at asan_test.cc:3"}},
			cut: []CutShort{{Suite: FormatGTest, Test: "Heap.Overflow", How: "AddressSanitizer: heap-buffer-overflow"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) { checkFramework(t, FormatGTest, dir+tt.file, tt.want) })
	}
}

// TestGTestTwoPrograms: make test running two GoogleTest programs, the
// first cut short: the second's start ends the first.
func TestGTestTwoPrograms(t *testing.T) {
	log := "[==========] Running 2 tests from 1 test suite.\n[ RUN      ] A.One\n[       OK ] A.One (0 ms)\n[ RUN      ] A.Two\n" +
		"[==========] Running 1 test from 1 test suite.\n[ RUN      ] B.One\n[       OK ] B.One (0 ms)\n" +
		"[==========] 1 test from 1 test suite ran. (0 ms total)\n[  PASSED  ] 1 test.\n"
	rep, err := Parse("googletest", strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != Errored || rep.Totals != (Totals{Total: 3, Passed: 2, Errored: 1}) ||
		len(rep.CutShort) != 1 || rep.CutShort[0].Test != "A.Two" {
		t.Errorf("status %s, totals %+v, cut short %+v", rep.Status, rep.Totals, rep.CutShort)
	}
}
