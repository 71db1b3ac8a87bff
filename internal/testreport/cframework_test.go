package testreport

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The C/C++ frameworks' recordings (testdata/frameworks/c-src/README):
// each program has the tests add/fault/sub (and a fourth), fault doing
// what CFW_FAULT says: pass, fail an assertion, segfault, abort, exit(0).
const cfwData = "testdata/frameworks/"

var cfwFormats = []string{FormatBoostTest, FormatCheck, FormatCmocka, FormatCriterion, FormatCUnit, FormatUnity}

// cfwCase is what a case must be; msg is matched as a substring, file ""
// and line 0 when the output gives no file:line.
type cfwCase struct {
	status Status
	file   string
	line   int
	msg    string
}

type cfwWant struct {
	path   string // under testdata/frameworks
	status Status
	totals Totals
	cases  map[string]cfwCase // by "suite/name"; the named cases, each of them
	sum    []int              // ToolSummary's Total, Passed, Failed, Skipped; nil: no ToolSummary
	cut    []CutShort         // How matched as a substring
	watch  string             // what frameworkWatch says of the program under CTest
}

func cfwTot(total, passed, failed, skipped, errored, crashed int) Totals {
	return Totals{Total: total, Passed: passed, Failed: failed, Skipped: skipped, Errored: errored, Crashed: crashed}
}

var (
	cfwCheckPassed = map[string]cfwCase{"Core/test_add": {Passed, "check_t.c", 4, ""}, "Core/test_sub": {Passed, "check_t.c", 13, ""},
		"Strings/test_str": {Passed, "check_t.c", 16, ""}}
	cfwCUnitPassed = map[string]cfwCase{"math/add": {Passed, "", 0, ""}, "math/sub": {Passed, "", 0, ""}, "strings/same": {Passed, "", 0, ""}}
	cfwBoostPassed = map[string]cfwCase{"math/add": {Passed, "boost_t.cpp", 8, ""}, "math/sub": {Passed, "boost_t.cpp", 13, ""},
		"strings/same": {Passed, "boost_t.cpp", 17, ""}}
	cfwCriterionPassed = map[string]cfwCase{"math/add": {Passed, "", 0, ""}, "math/sub": {Passed, "", 0, ""},
		"strings/same": {Passed, "", 0, ""}, "strings/skipped": {Skipped, "", 0, "Test is disabled"}}
	cfwCmockaPassed = map[string]cfwCase{"cmocka/test_add": {Passed, "", 0, ""}, "cmocka/test_sub": {Passed, "", 0, ""},
		"cmocka/test_skip": {Skipped, "", 0, ""}}
	cfwUnityPassed = map[string]cfwCase{"unity_t/test_add": {Passed, "unity_t.c", 17, ""}, "unity_t/test_sub": {Passed, "unity_t.c", 19, ""},
		"unity_t/test_ignored": {Skipped, "unity_t.c", 13, "not yet"}}
)

// with returns base and the extra cases.
func cfwWith(base map[string]cfwCase, extra map[string]cfwCase) map[string]cfwCase {
	out := map[string]cfwCase{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func cfwOnly(keys ...string) func(map[string]cfwCase) map[string]cfwCase {
	return func(m map[string]cfwCase) map[string]cfwCase {
		out := map[string]cfwCase{}
		for _, k := range keys {
			out[k] = m[k]
		}
		return out
	}
}

var cfwWants = []cfwWant{
	// Check, forked (CK_FORK, the default) and CK_VERBOSE: the summary,
	// then a line per test; a signal in a forked test is its E line.
	{"check/check-fork-pass.log", Passed, cfwTot(4, 4, 0, 0, 0, 0),
		cfwWith(cfwCheckPassed, map[string]cfwCase{"Core/test_fault": {Passed, "check_t.c", 9, ""}}), []int{4, 4, 0, -1}, nil, ""},
	{"check/check-fork-fail.log", Failed, cfwTot(4, 3, 1, 0, 0, 0),
		cfwWith(cfwCheckPassed, map[string]cfwCase{"Core/test_fault": {Failed, "check_t.c", 9, "Assertion 'cfw_failing() ? 3 : 2 == 2' failed: cfw_failing() ? 3 : 2 == 3, 2 == 2"}}),
		[]int{4, 3, 1, -1}, nil, ""},
	{"check/check-fork-segv.log", Crashed, cfwTot(4, 3, 0, 0, 0, 1),
		cfwWith(cfwCheckPassed, map[string]cfwCase{"Core/test_fault": {Crashed, "check_t.c", 7, "Received signal 11 (Segmentation fault)"}}), []int{4, 3, 1, -1}, nil, ""},
	{"check/check-fork-abort.log", Crashed, cfwTot(4, 3, 0, 0, 0, 1),
		cfwWith(cfwCheckPassed, map[string]cfwCase{"Core/test_fault": {Crashed, "check_t.c", 7, "Received signal 6 (Aborted)"}}), []int{4, 3, 1, -1}, nil, ""},
	// exit(0) in a forked test is a pass to Check (the line is the
	// test's first, 7, where a passing one's is its last checkpoint, 9).
	{"check/check-fork-exit0.log", Passed, cfwTot(4, 4, 0, 0, 0, 0),
		cfwWith(cfwCheckPassed, map[string]cfwCase{"Core/test_fault": {Passed, "check_t.c", 7, ""}}), []int{4, 4, 0, -1}, nil, ""},
	// CK_NORMAL (the program's CK_ENV without CK_VERBOSITY): failures only.
	{"check/check-fork-normal-pass.log", Passed, cfwTot(4, 4, 0, 0, 0, 0), map[string]cfwCase{}, []int{4, 4, 0, -1}, nil, ""},
	{"check/check-fork-normal-fail.log", Failed, cfwTot(4, 3, 1, 0, 0, 0),
		map[string]cfwCase{"Core/test_fault": {Failed, "check_t.c", 9, "Assertion 'cfw_failing() ? 3 : 2 == 2' failed"}}, []int{4, 3, 1, -1}, nil, ""},
	{"check/check-fork-normal-segv.log", Crashed, cfwTot(4, 3, 0, 0, 0, 1),
		map[string]cfwCase{"Core/test_fault": {Crashed, "check_t.c", 7, "Received signal 11 (Segmentation fault)"}}, []int{4, 3, 1, -1}, nil, ""},
	// CK_FORK=no: the tests run in the program, whose crash or exit ends
	// its output at "Running suite(s): Math"; Check never names the test.
	{"check/check-nofork-pass.log", Passed, cfwTot(4, 4, 0, 0, 0, 0),
		cfwWith(cfwCheckPassed, map[string]cfwCase{"Core/test_fault": {Passed, "check_t.c", 9, ""}}), []int{4, 4, 0, -1}, nil, ""},
	{"check/check-nofork-fail.log", Failed, cfwTot(4, 3, 1, 0, 0, 0),
		cfwWith(cfwCheckPassed, map[string]cfwCase{"Core/test_fault": {Failed, "check_t.c", 9, "failed: cfw_failing() ? 3 : 2 == 3, 2 == 2"}}), []int{4, 3, 1, -1}, nil, ""},
	{"check/check-nofork-segv.log", Errored, cfwTot(0, 0, 0, 0, 0, 0), map[string]cfwCase{}, nil,
		[]CutShort{{Suite: "Math", How: "the output ended before Check's summary"}}, "Check"},
	{"check/check-nofork-abort.log", Errored, cfwTot(0, 0, 0, 0, 0, 0), map[string]cfwCase{}, nil,
		[]CutShort{{Suite: "Math", How: "the output ended before Check's summary"}}, "Check"},
	{"check/check-nofork-exit0.log", Errored, cfwTot(0, 0, 0, 0, 0, 0), map[string]cfwCase{}, nil,
		[]CutShort{{Suite: "Math", How: "the output ended before Check's summary"}}, "Check"},
	// The same segfault run by make, which names the signal.
	{"check/check-nofork-segv-make.log", Crashed, cfwTot(1, 0, 0, 0, 0, 1),
		map[string]cfwCase{"Math/" + UnnamedCase: {Crashed, "", 0, "died before Check's summary: SIGSEGV (Segmentation fault)"}}, nil, nil, "Check"},

	// cmocka: "[ RUN      ]" before each test; it catches SIGSEGV, not
	// SIGABRT, and exit(0) ends the program under the test.
	{"cmocka/cmocka-pass.log", Passed, cfwTot(4, 3, 0, 1, 0, 0),
		cfwWith(cfwCmockaPassed, map[string]cfwCase{"cmocka/test_fault": {Passed, "", 0, ""}}), []int{4, 3, 0, 1}, nil, ""},
	{"cmocka/cmocka-fail.log", Failed, cfwTot(4, 2, 1, 1, 0, 0),
		cfwWith(cfwCmockaPassed, map[string]cfwCase{"cmocka/test_fault": {Failed, "cmocka_t.c", 12, "0x3 != 0x2"}}), []int{4, 2, 1, 1}, nil, ""},
	{"cmocka/cmocka-segv.log", Crashed, cfwTot(4, 2, 0, 1, 0, 1),
		cfwWith(cfwCmockaPassed, map[string]cfwCase{"cmocka/test_fault": {Crashed, "", 0, "Test failed with exception: Segmentation fault(11)"}}), []int{4, 2, 1, 1}, nil, ""},
	{"cmocka/cmocka-abort.log", Errored, cfwTot(2, 1, 0, 0, 1, 0),
		cfwOnly("cmocka/test_add", "cmocka/test_fault")(cfwWith(cfwCmockaPassed, map[string]cfwCase{"cmocka/test_fault": {Errored, "", 0, "ended before the test finished"}})), nil,
		[]CutShort{{Suite: "cmocka", Test: "test_fault", How: "the output ended before its result and cmocka's summary"}}, "cmocka"},
	{"cmocka/cmocka-exit0.log", Errored, cfwTot(2, 1, 0, 0, 1, 0),
		cfwOnly("cmocka/test_add", "cmocka/test_fault")(cfwWith(cfwCmockaPassed, map[string]cfwCase{"cmocka/test_fault": {Errored, "", 0, "ended before the test finished"}})), nil,
		[]CutShort{{Suite: "cmocka", Test: "test_fault", How: "the output ended before its result"}}, "cmocka"},
	{"cmocka/cmocka-abort-make.log", Crashed, cfwTot(2, 1, 0, 0, 0, 1),
		cfwOnly("cmocka/test_add", "cmocka/test_fault")(cfwWith(cfwCmockaPassed, map[string]cfwCase{"cmocka/test_fault": {Crashed, "", 0, "died in the test: SIGABRT (Aborted)"}})), nil, nil, "cmocka"},

	// Criterion: each test in a process of its own. By default only the
	// failures and the Synthesis line; with --verbose every test.
	{"criterion/criterion-pass.log", Passed, cfwTot(4, 4, 0, 0, 0, 0), map[string]cfwCase{}, []int{4, 4, 0, 0}, nil, ""},
	{"criterion/criterion-fail.log", Failed, cfwTot(4, 3, 1, 0, 0, 0),
		map[string]cfwCase{"math/fault": {Failed, "criterion_t.c", 16, "Assertion Failed\nfault: want 2"}}, []int{4, 3, 1, 0}, nil, ""},
	{"criterion/criterion-segv.log", Crashed, cfwTot(4, 3, 0, 0, 0, 1),
		map[string]cfwCase{"math/fault": {Crashed, "criterion_t.c", 13, "CRASH! Unexpected signal caught below this line!"}}, []int{4, 3, 1, 0}, nil, ""},
	{"criterion/criterion-abort.log", Crashed, cfwTot(4, 3, 0, 0, 0, 1),
		map[string]cfwCase{"math/fault": {Crashed, "criterion_t.c", 13, "CRASH!"}}, []int{4, 3, 1, 0}, nil, ""},
	// exit(0) in a test's own process is a pass to Criterion.
	{"criterion/criterion-exit0.log", Passed, cfwTot(4, 4, 0, 0, 0, 0), map[string]cfwCase{}, []int{4, 4, 0, 0}, nil, ""},
	{"criterion/criterion-verbose-pass.log", Passed, cfwTot(5, 4, 0, 1, 0, 0),
		cfwWith(cfwCriterionPassed, map[string]cfwCase{"math/fault": {Passed, "", 0, ""}}), []int{5, 4, 0, 1}, nil, ""},
	{"criterion/criterion-verbose-fail.log", Failed, cfwTot(5, 3, 1, 1, 0, 0),
		cfwWith(cfwCriterionPassed, map[string]cfwCase{"math/fault": {Failed, "criterion_t.c", 16, "fault: want 2"}}), []int{5, 3, 1, 1}, nil, ""},
	{"criterion/criterion-verbose-segv.log", Crashed, cfwTot(5, 3, 0, 1, 0, 1),
		cfwWith(cfwCriterionPassed, map[string]cfwCase{"math/fault": {Crashed, "criterion_t.c", 13, "CRASH!"}}), []int{5, 3, 1, 1}, nil, ""},
	{"criterion/criterion-verbose-abort.log", Crashed, cfwTot(5, 3, 0, 1, 0, 1),
		cfwWith(cfwCriterionPassed, map[string]cfwCase{"math/fault": {Crashed, "criterion_t.c", 13, "CRASH!"}}), []int{5, 3, 1, 1}, nil, ""},
	{"criterion/criterion-verbose-exit0.log", Passed, cfwTot(5, 4, 0, 1, 0, 0),
		cfwWith(cfwCriterionPassed, map[string]cfwCase{"math/fault": {Passed, "", 0, ""}}), []int{5, 4, 0, 1}, nil, ""},
	// The fault test kills the runner: no Synthesis.
	{"criterion/criterion-verbose-killrunner.log", Errored, cfwTot(2, 1, 0, 0, 1, 0),
		map[string]cfwCase{"math/add": {Passed, "", 0, ""}, "math/fault": {Errored, "", 0, "ended before the test finished"}}, nil,
		[]CutShort{{Suite: "math", Test: "fault", How: "the output ended before its result and Criterion's summary"}}, "Criterion"},

	// CUnit (basic interface, CU_BRM_VERBOSE): "  Test: T ..." as a test
	// starts; no signal is caught.
	{"cunit/cunit-pass.log", Passed, cfwTot(4, 4, 0, 0, 0, 0),
		cfwWith(cfwCUnitPassed, map[string]cfwCase{"math/fault": {Passed, "", 0, ""}}), []int{4, 4, 0, 0}, nil, ""},
	{"cunit/cunit-fail.log", Failed, cfwTot(4, 3, 1, 0, 0, 0),
		cfwWith(cfwCUnitPassed, map[string]cfwCase{"math/fault": {Failed, "cunit_t.c", 7, "CU_ASSERT_EQUAL(cfw_failing() ? 3 : 2,2)"}}), []int{4, 3, 1, 0}, nil, ""},
	{"cunit/cunit-segv.log", Errored, cfwTot(2, 1, 0, 0, 1, 0),
		map[string]cfwCase{"math/add": {Passed, "", 0, ""}, "math/fault": {Errored, "", 0, "ended before the test finished"}}, nil,
		[]CutShort{{Suite: "math", Test: "fault", How: "the output ended before its result and CUnit's summary"}}, "CUnit"},
	{"cunit/cunit-abort.log", Errored, cfwTot(2, 1, 0, 0, 1, 0),
		map[string]cfwCase{"math/add": {Passed, "", 0, ""}, "math/fault": {Errored, "", 0, "ended before the test finished"}}, nil,
		[]CutShort{{Suite: "math", Test: "fault", How: "CUnit's summary"}}, "CUnit"},
	{"cunit/cunit-exit0.log", Errored, cfwTot(2, 1, 0, 0, 1, 0),
		map[string]cfwCase{"math/add": {Passed, "", 0, ""}, "math/fault": {Errored, "", 0, "ended before the test finished"}}, nil,
		[]CutShort{{Suite: "math", Test: "fault", How: "CUnit's summary"}}, "CUnit"},
	// make's "Segmentation fault" lands on the unfinished test's line.
	{"cunit/cunit-segv-make.log", Crashed, cfwTot(2, 1, 0, 0, 0, 1),
		map[string]cfwCase{"math/add": {Passed, "", 0, ""}, "math/fault": {Crashed, "", 0, "died in the test: SIGSEGV (Segmentation fault)"}}, nil, nil, "CUnit"},
	// CU_BRM_NORMAL: "Suite math, Test fault had failures:" only.
	{"cunit/cunit-normal-pass.log", Passed, cfwTot(4, 4, 0, 0, 0, 0), map[string]cfwCase{}, []int{4, 4, 0, 0}, nil, ""},
	{"cunit/cunit-normal-fail.log", Failed, cfwTot(4, 3, 1, 0, 0, 0),
		map[string]cfwCase{"math/fault": {Failed, "cunit_t.c", 7, "CU_ASSERT_EQUAL(cfw_failing() ? 3 : 2,2)"}}, []int{4, 3, 1, 0}, nil, ""},
	// An inactive test (not run, not listed) and a suite whose init failed.
	{"cunit/cunit-inactive-initfail.log", Errored, cfwTot(1, 1, 0, 0, 0, 0),
		map[string]cfwCase{"a/ok": {Passed, "", 0, ""}}, []int{1, 1, 0, 1}, nil, ""},

	// Unity (cJSON's copy): a line per finished test, nothing as one
	// starts; stdout line-buffered (stdbuf -oL) so that a crash keeps it.
	{"unity/unity-pass.log", Passed, cfwTot(4, 3, 0, 1, 0, 0),
		cfwWith(cfwUnityPassed, map[string]cfwCase{"unity_t/test_fault": {Passed, "unity_t.c", 18, ""}}), []int{4, 3, 0, 1}, nil, ""},
	{"unity/unity-fail.log", Failed, cfwTot(4, 2, 1, 1, 0, 0),
		cfwWith(cfwUnityPassed, map[string]cfwCase{"unity_t/test_fault": {Failed, "unity_t.c", 10, "Expected 2 Was 3. fault"}}), []int{4, 2, 1, 1}, nil, ""},
	{"unity/unity-segv.log", Errored, cfwTot(1, 1, 0, 0, 0, 0), cfwOnly("unity_t/test_add")(cfwUnityPassed), nil,
		[]CutShort{{Suite: "unity_t", How: "the output ended before Unity's summary"}}, "Unity"},
	{"unity/unity-abort.log", Errored, cfwTot(1, 1, 0, 0, 0, 0), cfwOnly("unity_t/test_add")(cfwUnityPassed), nil,
		[]CutShort{{Suite: "unity_t", How: "the output ended before Unity's summary"}}, "Unity"},
	{"unity/unity-exit0.log", Errored, cfwTot(1, 1, 0, 0, 0, 0), cfwOnly("unity_t/test_add")(cfwUnityPassed), nil,
		[]CutShort{{Suite: "unity_t", How: "the output ended before Unity's summary"}}, "Unity"},

	// Boost.Test by default: the failed checks and the report's "***"
	// line (colour codes and all); a segfault aborts the module's others.
	{"boost-test/boost-test-pass.log", Passed, cfwTot(4, 4, 0, 0, 0, 0), map[string]cfwCase{}, []int{-1, -1, -1, -1}, nil, ""},
	{"boost-test/boost-test-fail.log", Failed, cfwTot(4, 3, 1, 0, 0, 0),
		map[string]cfwCase{"math/fault": {Failed, "boost_t.cpp", 11, "check (cfw_failing() ? 3 : 2) == 2 has failed [3 != 2]"}}, []int{-1, -1, -1, -1}, nil, ""},
	{"boost-test/boost-test-segv.log", Crashed, cfwTot(1, 0, 0, 0, 0, 1),
		map[string]cfwCase{"math/fault": {Crashed, "boost_t.cpp", 9, "memory access violation at address: 0x00000000: no mapping at fault address"}}, []int{-1, -1, -1, -1}, nil, ""},
	{"boost-test/boost-test-abort.log", Crashed, cfwTot(4, 3, 0, 0, 0, 1),
		map[string]cfwCase{"math/fault": {Crashed, "boost_t.cpp", 9, "signal: SIGABRT (application abort requested)"}}, []int{-1, -1, -1, -1}, nil, ""},
	{"boost-test/boost-test-exit0.log", Errored, cfwTot(0, 0, 0, 0, 0, 0), map[string]cfwCase{}, nil,
		[]CutShort{{Suite: FormatBoostTest, How: "the output ended before Boost.Test's summary"}}, "Boost.Test"},
	// REQUIRE, an exception, a collections check over two lines, a test
	// at the module's top (one of four planned; a fifth is disabled).
	{"boost-test/boost-test-extra.log", Failed, cfwTot(4, 1, 3, 0, 0, 0),
		map[string]cfwCase{"outer/inner/requires": {Failed, "boost_x.cpp", 9, "critical check 1 == 2 has failed [1 != 2]"},
			"outer/inner/throws":      {Failed, "boost_x.cpp", 10, "std::runtime_error: boom"},
			"outer/inner/collections": {Failed, "boost_x.cpp", 13, "has failed. \nMismatch at position 1: 2 != 3"}},
		[]int{-1, -1, -1, -1}, nil, ""},
	// --log_level=test_suite --report_level=short: every test unit's
	// Entering and Leaving, and the module's counts.
	{"boost-test/boost-test-log-pass.log", Passed, cfwTot(4, 4, 0, 0, 0, 0),
		cfwWith(cfwBoostPassed, map[string]cfwCase{"math/fault": {Passed, "boost_t.cpp", 9, ""}}), []int{4, 4, -1, -1}, nil, ""},
	{"boost-test/boost-test-log-fail.log", Failed, cfwTot(4, 3, 1, 0, 0, 0),
		cfwWith(cfwBoostPassed, map[string]cfwCase{"math/fault": {Failed, "boost_t.cpp", 11, "[3 != 2]"}}), []int{4, 3, 1, -1}, nil, ""},
	// Boost.Test's own counts after the abort are its own (3 of them).
	{"boost-test/boost-test-log-segv.log", Crashed, cfwTot(2, 1, 0, 0, 0, 1),
		cfwOnly("math/add", "math/fault")(cfwWith(cfwBoostPassed, map[string]cfwCase{"math/fault": {Crashed, "boost_t.cpp", 9, "memory access violation"}})),
		[]int{3, 2, 1, -1}, nil, ""},
	{"boost-test/boost-test-log-abort.log", Crashed, cfwTot(4, 3, 0, 0, 0, 1),
		cfwWith(cfwBoostPassed, map[string]cfwCase{"math/fault": {Crashed, "boost_t.cpp", 9, "signal: SIGABRT"}}), []int{4, 3, 1, -1}, nil, ""},
	{"boost-test/boost-test-log-exit0.log", Errored, cfwTot(2, 1, 0, 0, 1, 0),
		cfwOnly("math/add", "math/fault")(cfwWith(cfwBoostPassed, map[string]cfwCase{"math/fault": {Errored, "", 0, "ended before the test finished"}})), nil,
		[]CutShort{{Suite: "math", Test: "fault", How: "the output ended before its result and Boost.Test's summary"}}, "Boost.Test"},
	{"boost-test/boost-test-log-extra.log", Failed, cfwTot(5, 1, 3, 1, 0, 0),
		map[string]cfwCase{"boost-test/top_level": {Passed, "boost_x.cpp", 6, ""},
			"outer/inner/requires":    {Failed, "boost_x.cpp", 9, "critical check"},
			"outer/inner/throws":      {Failed, "boost_x.cpp", 10, "std::runtime_error: boom"},
			"outer/inner/collections": {Failed, "boost_x.cpp", 13, "Mismatch at position 1: 2 != 3"},
			"outer/inner/off":         {Skipped, "", 0, "disabled"}},
		[]int{5, 1, 3, 1}, nil, ""},
}

func cfwFormatOf(path string) string {
	return strings.SplitN(path, "/", 2)[0]
}

// TestCFrameworkRecordings reads every recording by the format
// DetectFormat names, and holds it to what the run was: each case's status,
// file:line and message, the totals, the framework's own tally and the
// run cut short (naming the test where the framework named it).
func TestCFrameworkRecordings(t *testing.T) {
	seen := map[string]bool{}
	for _, w := range cfwWants {
		seen[w.path] = true
		t.Run(w.path, func(t *testing.T) {
			b, err := os.ReadFile(cfwData + w.path)
			if err != nil {
				t.Fatal(err)
			}
			format := cfwFormatOf(w.path)
			if got := DetectFormat(b); got != format {
				t.Errorf("DetectFormat = %q, want %q", got, format)
			}
			rep, err := Parse(format, bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status != w.status || rep.Totals != w.totals {
				t.Errorf("status %s totals %+v, want %s %+v (notes %q)", rep.Status, rep.Totals, w.status, w.totals, rep.Notes)
			}
			got := map[string]Case{}
			for _, c := range rep.Cases {
				if !strings.HasPrefix(c.Name, "(unnamed passing test ") {
					got[c.Suite+"/"+c.Name] = c
				}
			}
			for k, want := range w.cases {
				c, ok := got[k]
				if !ok {
					t.Errorf("no case %s (cases %v)", k, slices.Sorted(maps.Keys(got)))
					continue
				}
				if c.Status != want.status || c.File != want.file || c.Line != want.line || !strings.Contains(c.Message, want.msg) {
					t.Errorf("%s: %s at %s:%d %q, want %s at %s:%d containing %q", k, c.Status, c.File, c.Line, c.Message, want.status, want.file, want.line, want.msg)
				}
				delete(got, k)
			}
			if len(got) > 0 {
				t.Errorf("cases not expected: %v", slices.Sorted(maps.Keys(got)))
			}
			switch ts := rep.ToolSummary; {
			case w.sum == nil && ts != nil:
				t.Errorf("tool summary %+v, want none", ts)
			case w.sum != nil && ts == nil:
				t.Errorf("no tool summary, want %v", w.sum)
			case w.sum != nil && (ts.Total != w.sum[0] || ts.Passed != w.sum[1] || ts.Failed != w.sum[2] || ts.Skipped != w.sum[3] || len(ts.Lines) == 0):
				t.Errorf("tool summary %+v, want total/passed/failed/skipped %v", ts, w.sum)
			}
			if len(rep.CutShort) != len(w.cut) {
				t.Fatalf("cut short %+v, want %+v", rep.CutShort, w.cut)
			}
			for i, cs := range rep.CutShort {
				if cs.Suite != w.cut[i].Suite || cs.Test != w.cut[i].Test || !strings.Contains(cs.How, w.cut[i].How) {
					t.Errorf("cut short %+v, want %+v", cs, w.cut[i])
				}
			}
			// Under CTest, which passes a program on its exit status, the
			// framework's start without its summary is the cut-short sign.
			fw := &frameworkWatch{}
			fw.Write(b)
			if got := fw.cutShort(); got != w.watch {
				t.Errorf("frameworkWatch: %q, want %q", got, w.watch)
			}
		})
	}
	for _, f := range cfwFormats {
		paths, _ := filepath.Glob(cfwData + f + "/*.log")
		for _, p := range paths {
			if rel := strings.TrimPrefix(p, cfwData); !seen[rel] {
				t.Errorf("%s: a recording no case checks", rel)
			}
		}
	}
}

// TestCFrameworkCutAnywhere: every recording cut after any of its lines
// (the program killed, the log cut) never passes unless all the passed
// tests of the whole run were counted by then; a run never passes with
// fewer passed tests than the whole recording has.
func TestCFrameworkCutAnywhere(t *testing.T) {
	for _, w := range cfwWants {
		b, err := os.ReadFile(cfwData + w.path)
		if err != nil {
			t.Fatal(err)
		}
		format := cfwFormatOf(w.path)
		for i := 0; i < len(b); i++ {
			if b[i] != '\n' {
				continue
			}
			rep, err := Parse(format, bytes.NewReader(b[:i+1]))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status == Passed && (w.status != Passed || rep.Totals != w.totals) {
				t.Errorf("%s cut after byte %d: passed with %+v", w.path, i+1, rep.Totals)
			}
		}
	}
}

// TestCFrameworkSeveralPrograms: a make target running two programs of
// one framework, the first cut short: each program is a run of its own.
func TestCFrameworkSeveralPrograms(t *testing.T) {
	read := func(p string) string {
		b, err := os.ReadFile(cfwData + p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		format, first, second string
		totals                Totals
		cut                   string // the test the first program was running
	}{
		{FormatCmocka, "cmocka/cmocka-exit0.log", "cmocka/cmocka-pass.log", cfwTot(6, 4, 0, 1, 1, 0), "test_fault"},
		{FormatCUnit, "cunit/cunit-exit0.log", "cunit/cunit-pass.log", cfwTot(6, 5, 0, 0, 1, 0), "fault"},
		{FormatBoostTest, "boost-test/boost-test-log-exit0.log", "boost-test/boost-test-log-pass.log", cfwTot(6, 5, 0, 0, 1, 0), "fault"},
		{FormatCriterion, "criterion/criterion-verbose-killrunner.log", "criterion/criterion-verbose-pass.log", cfwTot(7, 5, 0, 1, 1, 0), "fault"},
		{FormatCheck, "check/check-nofork-exit0.log", "check/check-fork-pass.log", cfwTot(4, 4, 0, 0, 0, 0), ""},
		{FormatUnity, "unity/unity-exit0.log", "unity/unity-pass.log", cfwTot(5, 4, 0, 1, 0, 0), ""},
		{FormatBoostTest, "boost-test/boost-test-exit0.log", "boost-test/boost-test-pass.log", cfwTot(4, 4, 0, 0, 0, 0), ""},
	}
	for _, tt := range tests {
		rep, err := Parse(tt.format, strings.NewReader(read(tt.first)+read(tt.second)))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Totals != tt.totals || len(rep.CutShort) != 1 || rep.CutShort[0].Test != tt.cut || rep.Status == Passed {
			t.Errorf("%s then %s: %s %+v, cut short %+v", tt.first, tt.second, rep.Status, rep.Totals, rep.CutShort)
		}
		if tt.format == FormatUnity {
			// Unity's lines name the program's file: a first program of
			// another file, cut short, is not the second's start.
			other := strings.ReplaceAll(read(tt.first), "unity_t.c", "other_t.c")
			rep, err := Parse(tt.format, strings.NewReader(other+read(tt.second)))
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.CutShort) != 1 || rep.CutShort[0].Suite != "other_t" || rep.Status == Passed {
				t.Errorf("other_t then unity_t: %s, cut short %+v", rep.Status, rep.CutShort)
			}
		}
		// And the other way round: the second program's start ends the
		// first, which passed.
		rep, err = Parse(tt.format, strings.NewReader(read(tt.second)+read(tt.first)))
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.CutShort) != 1 || rep.CutShort[0].Test != tt.cut || rep.Status == Passed {
			t.Errorf("%s then %s: %s, cut short %+v", tt.second, tt.first, rep.Status, rep.CutShort)
		}
	}
}

// TestDetectCFrameworksKeepsOthers: no other recording (the runners'
// logs, meson's, go test's, the other frameworks', the shared corpus) is
// taken for one of these frameworks' output, so every format detected
// before is detected still; and lines of one framework are never another's.
func TestDetectCFrameworksKeepsOthers(t *testing.T) {
	var paths []string
	filepath.WalkDir("testdata", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, p)
		}
		return nil
	})
	shared, _ := filepath.Glob(filepath.Join(fixtures, "*", "*"))
	paths = append(paths, shared...)
	checked := 0
	for _, p := range paths {
		rel := filepath.ToSlash(strings.TrimPrefix(p, cfwData))
		if slices.Contains(cfwFormats, cfwFormatOf(rel)) || strings.HasPrefix(rel, "c-src/") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		sample := b[:min(len(b), sniffSize)]
		if got := DetectFormat(sample); slices.Contains(cfwFormats, got) {
			t.Errorf("%s: detected as %q", p, got)
		}
		if got := frameworkFormat(sample); got != "" && strings.Contains(p, "frameworks") {
			t.Errorf("%s: has a line of %s", p, got) // another framework's output
		}
		checked++
	}
	if checked < 40 {
		t.Errorf("only %d recordings checked", checked)
	}
	// Two programs' output in one log: the format of the first to speak.
	read := func(p string) []byte { b, _ := os.ReadFile(cfwData + p); return b }
	for _, pair := range [][2]string{{"cmocka/cmocka-fail.log", "check/check-fork-fail.log"}, {"check/check-fork-fail.log", "unity/unity-pass.log"},
		{"unity/unity-fail.log", "boost-test/boost-test-log-fail.log"}, {"cunit/cunit-fail.log", "criterion/criterion-verbose-fail.log"}} {
		if got, want := DetectFormat(append(read(pair[0]), read(pair[1])...)), cfwFormatOf(pair[0]); got != want {
			t.Errorf("%s then %s: %q, want %q", pair[0], pair[1], got, want)
		}
	}
	// Each framework's recording is its own alone.
	for _, w := range cfwWants {
		b, _ := os.ReadFile(cfwData + w.path)
		for _, s := range frameworkSniffers() {
			if i := s.first(b, len(b)+1); s.format != cfwFormatOf(w.path) && i >= 0 {
				t.Errorf("%s has a line of %s at %d", w.path, s.format, i)
			}
		}
	}
}

// TestCFrameworkHostile: malformed and truncated lines never panic and
// never pass without a passing test.
func TestCFrameworkHostile(t *testing.T) {
	inputs := []string{
		"", "\n", "\x00\xff garbage\n", strings.Repeat("[RUN ] a::b\n", 1000),
		"Running suite(s):\n", "999999999999999999999%: Checks: 9999999999999999999999, Failures: x, Errors: 0\n",
		"a.c:1:E:::0:\n", ":1:P:x:y:0: Passed\n",
		"[==========] Running 0 test(s).\n[==========] 0 test(s) run.\n[  PASSED  ] 0 test(s).\n",
		"[ RUN      ] \n[       OK ] \n", "[  FAILED  ] 5 test(s), listed below:\n",
		"[====] Synthesis: Tested: 0 | Passing: 0 | Failing: 0 | Crashing: 0\n", "[FAIL] ::: CRASH!\n", "[----] x:1: \n",
		"Run Summary:    Type  Total    Ran Passed Failed Inactive\n  tests 5 5 5 0 0\n", "  Test:  ...\n", "Suite math, Test  had failures:\n",
		"0 Tests 0 Failures 0 Ignored\nOK\n", "x.c:1:t:PASS", "x.c:1:t:FAIL:\n\n",
		"Running 0 test cases...\n*** No errors detected\n", "x(1): Leaving test case \"\"\n", "x(1): error: in \"\": \n",
		"Test module \"\" has passed with:\n  99 test cases out of 1 passed\n",
		"make: *** [Makefile:1: test] Segmentation fault\n", "Aborted\n",
	}
	for _, in := range inputs {
		for _, f := range cfwFormats {
			rep, err := Parse(f, strings.NewReader(in))
			if err != nil {
				t.Errorf("%s %q: %v", f, in, err)
				continue
			}
			if rep.Status == Passed && rep.Totals.Passed == 0 {
				t.Errorf("%s %q: passed with no passed case", f, in)
			}
			if rep.Totals.Total != len(rep.Cases) {
				t.Errorf("%s %q: totals %+v for %d cases", f, in, rep.Totals, len(rep.Cases))
			}
		}
	}
}
