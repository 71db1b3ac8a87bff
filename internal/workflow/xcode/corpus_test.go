package xcode_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/fakexcode"
)

// corpus holds a hand-written expectation for every recorded xcodebuild
// log: the tool it is replayed through, the exit status xcodebuild had,
// the verdict, and text the answer must show (a failing test, an error, a
// runner error).
var corpus = map[string]struct {
	tool   string
	exit   int
	status string
	line   string // verdict line prefix
	shows  []string
}{
	"bitrise_xcodebuild-UITest-timeout.txt": {"xcode_test", 65, "crashed",
		"CRASHED: BitriseXcode7SampleUITests.BitriseXcode7SampleUITests.testAddAnItemGoToDetailsThenDeleteIt crashed", nil},
	"bitrise_xcodebuild-compile-error.txt": {"xcode_build", 65, "failed", "BUILD FAILED: 6 errors",
		[]string{"AppDelegate.swift:20:9: use of unresolved identifier 'let2'"}},
	"bitrise_xcodebuild-early-unexpected-exit_1.txt": {"xcode_test", 65, "crashed",
		"CRASHED: the test runner exited unexpectedly: Test target ios-xcode-8.0Tests encountered an error (Early unexpected exit", nil},
	"bitrise_xcodebuild-failed-to-background-test-runner.txt": {"xcode_test", 65, "failed",
		"TESTS FAILED: the test runner failed: Test target ios-xcode-8.0UITests encountered an error (Failed to background test runner", nil},
	"bitrise_xcodebuild-failed-to-open-test-runner.txt": {"xcode_test", 65, "failed",
		"TESTS FAILED: the test runner failed: ios-simple-objcUITests-Runner encountered an error (Failed to install or launch the test runner", nil},
	"bitrise_xcodebuild-failure-attempting-tolaunch.txt": {"xcode_test", 65, "failed", "TESTS FAILED: 1 of 3 failed", []string{"[failed]"}},
	"bitrise_xcodebuild-iPhoneSimulator-timeout.txt": {"xcode_test", 65, "failed",
		"TESTS FAILED: the test runner failed: xxxxxxxxxxxxx iPhoneSimulator: Timed out waiting 120 seconds for simulator to boot", nil},
	"bitrise_xcodebuild-ok.txt": {"xcode_test", 0, "succeeded", "TESTS PASSED: 3 passed", nil},
	"bitrise_xcodebuild-test-runner-failed-to-initialize.txt": {"xcode_test", 65, "failed",
		"TESTS FAILED: the test runner failed: Test target ios-xcode-8.0UITests encountered an error (Test runner failed to initialize", nil},
	"fastlane_scan_boring.log":                     {"xcode_test", 0, "succeeded", "TESTS PASSED: 3 passed", nil},
	"fastlane_scan_build_failure_xcbeautified.log": {"xcode_build", 65, "failed", "BUILD FAILED: 1 error", []string{"errors:"}},
	"fastlane_scan_early_testing_failure.log": {"xcode_test", 65, "crashed",
		"CRASHED: the test runner exited unexpectedly: TestingTest.app (30007) encountered an error (Early unexpected exit", nil},
	"fastlane_scan_parallel_testing_failure.log":     {"xcode_test", 65, "failed", "TESTS FAILED: 1 of 18 failed", []string{"testFailure()"}},
	"fastlane_scan_parallel_testing_failure_2.log":   {"xcode_test", 65, "failed", "TESTS FAILED: 2 of 2 failed", []string{"Failed to prepare device"}},
	"fastlane_scan_xcode26_test_execute_failure.log": {"xcode_test", 65, "failed", "TESTS FAILED: 2 of 2 failed", nil},
	"xcbeautify_MixedTestLog_6_0_Linux.txt":          {"xcode_test", 1, "failed", "TESTS FAILED: 2 of 6 failed", nil},
	"xcbeautify_MixedTestLog_6_0_macOS.txt":          {"xcode_test", 1, "failed", "TESTS FAILED: 2 of 6 failed", nil},
	"xcbeautify_TestLog.txt": {"xcode_test", 65, "crashed",
		"CRASHED: SwiftTests.testExample() crashed: Restarting after unexpected exit, crash, or test timeout", []string{"(and 2 more failed, of 85)"}},
	"xcbeautify_clean_build_xcode_15_1.txt":      {"xcode_build", 0, "succeeded", "BUILD SUCCEEDED", nil},
	"xcbeautify_demo_swift_testing_log.txt":      {"xcode_test", 1, "failed", "TESTS FAILED: 1 of 3 failed", nil},
	"xcbeautify_spi_swift_testing_full_log.txt":  {"xcode_test", 1, "failed", "TESTS FAILED: 3 of 4 failed", nil},
	"xcbeautify_spi_swift_testing_short_log.txt": {"xcode_test", 1, "failed", "TESTS FAILED: 3 of 4 failed", nil},
	"xcbeautify_swift_test_log_macOS.txt":        {"xcode_test", 1, "failed", "TESTS FAILED: 2 of 463 failed", nil},
	"xcmcp_linker-error-output.txt":              {"xcode_build", 65, "failed", "BUILD FAILED: 4 errors", []string{"linker command failed"}},
	"xcmcp_swift-testing-output.txt":             {"xcode_test", 0, "succeeded", "TESTS PASSED: 23 passed", nil},
	"xcpretty_raw_kiwi_compilation_fail.txt":     {"xcode_build", 65, "failed", "BUILD FAILED: 2 errors", nil},
	"xcpretty_raw_kiwi_fail.txt":                 {"xcode_test", 65, "failed", "TESTS FAILED: 3 of 48 failed", nil},
}

// TestCorpusThroughTools replays every recorded log through xcode_build or
// xcode_test with the fake xcodebuild (no result bundle, so the log alone
// decides) and checks the verdict. A log added to the corpus without an
// expectation fails the test.
func TestCorpusThroughTools(t *testing.T) {
	dir := fixture(t, "xcodebuild")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for name := range corpus {
		if !slices.Contains(names, name) {
			t.Errorf("expectation for %s, which is not in the corpus", name)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			want, ok := corpus[name]
			if !ok {
				t.Fatalf("no expectation for %s: add one to corpus", name)
			}
			log := filepath.Join(dir, name)
			e := newEnv(t, fakexcode.Rule{Tool: "xcodebuild", Match: []string{"-scheme", "App"}, StdoutFile: log, Exit: want.exit})
			r := e.c.Call(want.tool, e.args(nil))
			wantOutcome := "failed"
			if want.status == "succeeded" {
				wantOutcome = "ok"
			}
			if r.Outcome != wantOutcome || !strings.HasPrefix(r.FirstLine(), want.line) {
				t.Fatalf("outcome %q verdict %q; want %q, %q…\n%s", r.Outcome, r.FirstLine(), wantOutcome, want.line, r.Text)
			}
			var out struct{ Status string }
			r.Decode(t, &out)
			if out.Status != want.status {
				t.Errorf("status %q, want %q", out.Status, want.status)
			}
			for _, s := range want.shows {
				if !strings.Contains(r.Text, s) {
					t.Errorf("text lacks %q:\n%s", s, r.Text)
				}
			}
		})
	}
}
