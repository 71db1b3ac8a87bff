package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/toolchain"
)

// TestRunnerExitWithoutSignal replays recorded xcodebuild test logs through
// a runner that exits 65 without a signal: a crash the log records is
// named by its evidence (never "CRASHED: FAILED (exit 65)"), and runner
// errors make a failure with the runner's words, not a silent one.
func TestRunnerExitWithoutSignal(t *testing.T) {
	dir, err := filepath.Abs("../../../shared/fixtures/xcodebuild")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("fixtures absent (they live beside the repository): %v", err)
	}
	for _, tt := range []struct {
		log    string
		status Status
		line   string
	}{
		{"bitrise_xcodebuild-UITest-timeout.txt", Crashed,
			"CRASHED: BitriseXcode7SampleUITests.BitriseXcode7SampleUITests/testAddAnItemGoToDetailsThenDeleteIt crashed: the test runner crashed while the test was running (exit 65)"},
		{"xcbeautify_TestLog.txt", Crashed, "CRASHED: SwiftTests/testExample() crashed: Restarting after unexpected exit, crash, or test timeout"},
		{"fastlane_scan_early_testing_failure.log", Crashed, "CRASHED (Swift precondition failure, exit 65) in AppDelegate.swift:19"},
		{"bitrise_xcodebuild-failed-to-background-test-runner.txt", Failed,
			"TESTS FAILED: the test runner failed: Test target ios-xcode-8.0UITests encountered an error (Failed to background test runner."},
		{"bitrise_xcodebuild-iPhoneSimulator-timeout.txt", Failed,
			"TESTS FAILED: the test runner failed: xxxxxxxxxxxxx iPhoneSimulator: Timed out waiting 120 seconds for simulator to boot"},
		{"bitrise_xcodebuild-ok.txt", SilentFailure, "FAILED (exit 65) but no failing test was reported"},
	} {
		step := toolchain.Step{Name: toolchain.StepTest, Format: testreport.FormatXCTest,
			Argv: []string{"sh", "-c", `cat "$0"; exit 65`, filepath.Join(dir, tt.log)}}
		res, err := Run(context.Background(), Request{Kind: KindTest, Steps: []toolchain.Step{step}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != tt.status || !strings.HasPrefix(res.Line, tt.line) || strings.Contains(res.Line, "CRASHED: FAILED") {
			t.Errorf("%s: %s %q, want %s %q…", tt.log, res.Status, res.Line, tt.status, tt.line)
		}
	}
}
