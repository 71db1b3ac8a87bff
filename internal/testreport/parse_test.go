package testreport

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestHostileInput feeds malformed, truncated and adversarial input to every
// parser: none may panic, and none may report a pass it did not see.
func TestHostileInput(t *testing.T) {
	inputs := []string{
		"",
		"\n\n\n",
		"\x00\xff\xfe garbage \x1b[31m",
		strings.Repeat("x", 1<<20), // one 1 MiB line, no newline
		`{"Action":"run","Package":"p","Test":"T"`, // truncated JSON
		`{"Action":"fail","Package":"p"}`,
		`{"Action":"output","Package":"p","Test":"T","Output":"panic: boom\n"}`,
		"test a ... \n",      // libtest result never printed
		"test  ... FAILED\n", // empty name
		"test result: FAILED. x passed; y failed;\n",
		"1/1 Test #1: t ......***Exception: SegFault 0.0 sec\n",
		"<testsuites><testsuite><testcase name=\"a\"><failure>",
		"<testsuites tests=\"-5\" failures=\"abc\"></testsuites>",
		"<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY a \"aaaa\">]><testsuite><testcase name=\"&a;\"/></testsuite>",
		"Test Case '-[A b]' started.\nTest Case '-[A b]' started.\n",
		"Test Case '' failed (abc seconds).\n",
		"Test Case '-[A b' passed (0.1 seconds).\n",
		"\u2718 Test\n\u2718 Test \"unterminated failed after\n\u2714 Test run with 999999999999999999999 tests passed after 1 seconds.\n",
		"Testing failed:\n\t\n\t\t\n",
		"Failing tests:\n\t-[\n\t()\n",
		"Restarting after unexpected exit, crash, or test timeout in ; summary\n",
		"2016-09-23 02:09:52.616 X[1:2]\n",
	}
	formats := []string{FormatGoJSON, FormatCargo, FormatCTest, FormatJUnit, FormatXCTest}
	for _, in := range inputs {
		for _, f := range formats {
			name := f + "/" + in
			if len(name) > 60 {
				name = name[:60]
			}
			t.Run(name, func(t *testing.T) {
				rep, err := Parse(f, strings.NewReader(in))
				if err != nil {
					return // a clean error is fine
				}
				if rep.Status == Passed && rep.Totals.Passed == 0 {
					t.Errorf("status passed with no passed case")
				}
			})
		}
	}
}

func TestParseUnknownFormat(t *testing.T) {
	_, err := Parse("nunit", strings.NewReader(""))
	if !errors.Is(err, ErrUnknownFormat) {
		t.Fatalf("err = %v, want ErrUnknownFormat", err)
	}
	if _, err := ParseAuto(strings.NewReader("   \n")); !errors.Is(err, ErrUnknownFormat) {
		t.Fatalf("ParseAuto(blank) err = %v, want ErrUnknownFormat", err)
	}
}

func TestApplyExitCodeFlagsSilentFailure(t *testing.T) {
	rep, err := Parse(FormatCargo, strings.NewReader("running 1 test\ntest a ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != Passed {
		t.Fatalf("status = %s before exit code", rep.Status)
	}
	rep.ApplyExitCode(101)
	if !rep.SilentFailure || rep.Status == Passed || len(rep.Notes) == 0 {
		t.Errorf("after exit 101: silent=%v status=%s notes=%q", rep.SilentFailure, rep.Status, rep.Notes)
	}
	rep2, _ := Parse(FormatCargo, strings.NewReader("test a ... FAILED\n"))
	rep2.ApplyExitCode(101)
	if rep2.SilentFailure {
		t.Errorf("a parsed failure is not silent")
	}
}

func TestCountMismatchIsReported(t *testing.T) {
	// The tool says 3 tests with 1 failure; only two case lines are present.
	in := "Test Case '-[S a]' started.\nTest Case '-[S a]' passed (0.001 seconds).\n" +
		"Test Case '-[S b]' started.\nTest Case '-[S b]' passed (0.001 seconds).\n" +
		"Test Suite 'All tests' failed at 2024-01-01 00:00:00.000.\n\t Executed 3 tests, with 1 failure (0 unexpected) in 0.1 (0.1) seconds\n"
	rep, err := Parse(FormatXCTest, strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.CountMismatch {
		t.Errorf("no count mismatch flagged: %+v", rep)
	}
	if rep.Status == Passed {
		t.Errorf("status passed although the tool reports a failure")
	}
}

func TestGoJSONBinaryDiesMidTest(t *testing.T) {
	f, err := os.Open("testdata/go-test-json-exit.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := Parse(FormatGoJSON, f)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Case{}
	for _, c := range rep.Cases {
		byName[c.Name] = c
	}
	if c := byName["TestExits"]; c.Status != Errored || !strings.Contains(c.Message, "about to exit") {
		t.Errorf("TestExits (os.Exit mid-test) = %s %q, want errored with its output", c.Status, c.Message)
	}
	if c := byName["TestPanic"]; c.Status != Crashed {
		t.Errorf("TestPanic = %s, want crashed", c.Status)
	}
	if c := byName["TestWrong"]; c.File != "tst_test.go" || c.Line != 12 {
		t.Errorf("TestWrong location = %s:%d", c.File, c.Line)
	}
	if _, ok := byName["TestNeverRuns"]; ok {
		t.Errorf("a test that never ran was reported")
	}
	found := false
	for _, n := range rep.Notes {
		found = found || strings.Contains(n, "no test files")
	}
	if !found {
		t.Errorf("no note for the package without tests: %q", rep.Notes)
	}
}

// A coverage run reports a package without tests by its coverage line, not
// "[no test files]": that package is not cut short, and the failing test
// is the run's one failure.
func TestGoJSONCoverageRunPackageWithoutTests(t *testing.T) {
	f, err := os.Open("testdata/go-test-json-cover.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := Parse(FormatGoJSON, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.CutShort) != 0 {
		t.Errorf("cut short: %+v, want none", rep.CutShort)
	}
	if rep.Totals.Passed != 1 || rep.Totals.Failed != 1 || rep.Status != Failed {
		t.Errorf("totals %+v status %s, want 1 passed, 1 failed, failed", rep.Totals, rep.Status)
	}
	if !slices.Contains(rep.Notes, "example.com/cov/other: no test files") {
		t.Errorf("notes %q: want other's no test files", rep.Notes)
	}
}

func benchParse(b *testing.B, format, path string, repeat int) {
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("%s: %v", path, err)
	}
	in := bytes.Repeat(raw, repeat)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(format, bytes.NewReader(in)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseXCTest(b *testing.B) {
	benchParse(b, FormatXCTest, fixtures+"/xcodebuild/xcbeautify_swift_test_log_macOS.txt", 10)
}
func BenchmarkParseGoJSON(b *testing.B) {
	benchParse(b, FormatGoJSON, "testdata/go-test-json.log", 200)
}
func BenchmarkParseCargo(b *testing.B) { benchParse(b, FormatCargo, "testdata/cargo-test.log", 200) }
func BenchmarkParseCTest(b *testing.B) { benchParse(b, FormatCTest, "testdata/ctest.log", 500) }
func BenchmarkParseJUnit(b *testing.B) {
	benchParse(b, FormatJUnit, fixtures+"/junit/go-junit-report_030-stdout-report.xml", 1)
}

// TestNativeCrashes: a cargo test binary killed by a signal crashes the test
// that was running (named by libtest's stack-overflow line, or unnamed when
// libtest had not printed it), and CTest's "Subprocess aborted***Exception:"
// is a crash.
func TestNativeCrashes(t *testing.T) {
	const caused = "error: test failed, to rerun pass `--lib`\n\nCaused by:\n  process didn't exit successfully: `/p/target/debug/deps/crashy-3a07` (signal: 6, SIGABRT: process abort signal)\n"
	tests := []struct {
		format, log string
		crashed     string // name of the crashed case
		others      map[string]Status
	}{
		{FormatCargo, "     Running unittests src/lib.rs (target/debug/deps/crashy-3a07)\n\nrunning 2 tests\ntest tests::adds ... ok\n\n" +
			"thread 'tests::overflows' (12538) has overflowed its stack\nfatal runtime error: stack overflow, aborting\n" + caused,
			"tests::overflows", map[string]Status{"tests::adds": Passed}},
		// stderr's line cut by stdout's, as 2>&1 interleaves them.
		{FormatCargo, "running 2 tests\n\nthread 'test tests::adds ... ok\ntests::overflows' (17310) has overflowed its stack\n" + caused,
			"tests::overflows", nil},
		{FormatCargo, "running 2 tests\ntest tests::adds ... \nthread 'ok\ntests::overflows' (24015) has overflowed its stack\n" + caused,
			"tests::overflows", map[string]Status{"tests::adds": Errored}},
		{FormatCargo, "     Running unittests src/lib.rs (target/debug/deps/crashy-3a07)\n\nrunning 3 tests\ntest tests::adds ... ok\n" + caused,
			UnnamedCase, map[string]Status{"tests::adds": Passed}},
		{FormatCargo, "running 2 tests\ntest tests::adds ... ok\ntest tests::aborts ... " + caused,
			"tests::aborts", map[string]Status{"tests::adds": Passed}},
		{FormatCTest, "1/3 Test #1: t_ok .............................   Passed    0.00 sec\n" +
			"2/3 Test #2: t_abort ..........................Subprocess aborted***Exception:   0.02 sec\n" +
			"3/3 Test #3: t_segv ...........................***Exception: SegFault  0.00 sec\n",
			"t_abort", map[string]Status{"t_ok": Passed, "t_segv": Crashed}},
	}
	for _, tt := range tests {
		rep, err := Parse(tt.format, strings.NewReader(tt.log))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Status != Crashed {
			t.Errorf("%s: run status %s, want crashed", tt.crashed, rep.Status)
		}
		got := map[string]Case{}
		for _, c := range rep.Cases {
			got[c.Name] = c
		}
		if c := got[tt.crashed]; c.Status != Crashed || c.Message == "" {
			t.Errorf("%s: %+v, want crashed with a message (all %+v)", tt.crashed, c, rep.Cases)
		}
		for name, st := range tt.others {
			if got[name].Status != st {
				t.Errorf("%s: %s, want %s", name, got[name].Status, st)
			}
		}
	}
}

// A parallel libtest's "test tests::adds ... " cut from its result by the
// abort of tests::aborts: the log blames adds; the core's stack moves the
// crash to aborts.
func TestMoveCrash(t *testing.T) {
	const log = "     Running unittests src/lib.rs (target/debug/deps/crashy-3a07)\n\nrunning 2 tests\ntest tests::adds ... \n" +
		"error: test failed, to rerun pass `--lib`\n\nCaused by:\n  process didn't exit successfully: `/p/target/debug/deps/crashy-3a07` (signal: 6, SIGABRT: process abort signal)\n"
	rep, err := Parse(FormatCargo, strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	status := func(name string) Status {
		for _, c := range rep.Cases {
			if c.Name == name {
				return c.Status
			}
		}
		return ""
	}
	if status("tests::adds") != Crashed {
		t.Fatalf("the log's reading: adds %q, cases %+v", status("tests::adds"), rep.Cases)
	}
	suite := rep.Cases[0].Suite
	before := rep.Totals
	if !rep.MoveCrash(suite, "tests::adds", "tests::aborts", "the stack") {
		t.Fatal("MoveCrash found no crashed adds")
	}
	if status("tests::adds") != Errored || status("tests::aborts") != Crashed {
		t.Errorf("after the move: adds %q, aborts %q", status("tests::adds"), status("tests::aborts"))
	}
	want := before
	want.Total, want.Errored = before.Total+1, before.Errored+1
	if rep.Totals != want {
		t.Errorf("totals %+v, want %+v", rep.Totals, want)
	}
	if rep.MoveCrash(suite, "tests::adds", "tests::x", "") {
		t.Error("a case that no longer crashed was moved again")
	}
	// The unnamed case takes the name.
	rep, _ = Parse(FormatCargo, strings.NewReader("running 3 tests\ntest tests::adds ... ok\n"+
		"error: test failed, to rerun pass `--lib`\n\nCaused by:\n  process didn't exit successfully: `/p/x` (signal: 6, SIGABRT: process abort signal)\n"))
	total := rep.Totals
	if !rep.MoveCrash(rep.Cases[0].Suite, UnnamedCase, "tests::aborts", "") || status("tests::aborts") != Crashed || status(UnnamedCase) != "" || rep.Totals != total {
		t.Errorf("unnamed case: %+v %+v", rep.Cases, rep.Totals)
	}
}
