package testreport

import (
	"bytes"
	"errors"
	"os"
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
