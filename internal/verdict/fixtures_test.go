package verdict_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/verdict"
)

const fixtures = "../../../shared/fixtures"

// scanFile feeds a real log to a Scanner line by line.
func scanFile(t *testing.T, path string) *verdict.Scanner {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		t.Skipf("fixture %s absent (the shared fixtures folder is not checked out)", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := verdict.NewScanner()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		s.Feed(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestXcodebuildLogs classifies real xcodebuild logs with the exit status
// xcodebuild gives them (65 for failures), checking the runner crashes are
// caught and that clean logs stay clean.
func TestXcodebuildLogs(t *testing.T) {
	tests := []struct {
		file       string
		exit       int
		status     verdict.Status
		crash      verdict.CrashType
		indicators []string // must all fire
		line       string   // fragment of the verdict line
	}{
		{"bitrise_xcodebuild-ok.txt", 0, verdict.StatusSuccess, verdict.CrashNone, nil, "SUCCEEDED (exit 0)"},
		{"xcbeautify_clean_build_xcode_15_1.txt", 0, verdict.StatusSuccess, verdict.CrashNone, nil, "SUCCEEDED"},
		{"fastlane_scan_boring.log", 0, verdict.StatusSuccess, verdict.CrashNone, nil, "SUCCEEDED"},
		{"xcbeautify_swift_test_log_macOS.txt", 0, verdict.StatusSuccess, verdict.CrashNone, nil, "SUCCEEDED"},
		{"xcbeautify_spi_swift_testing_full_log.txt", 0, verdict.StatusSuccess, verdict.CrashNone, nil, "SUCCEEDED"},
		// A runner that crashed and restarted: never a success, whatever the exit.
		{"xcbeautify_TestLog.txt", 0, verdict.StatusCrash, verdict.CrashTestRunnerCrash,
			[]string{"XCTest runner restarted after a crash", "XCTest test failure", "XCTest assertion failure"},
			"CRASHED (exit 0, but output shows: XCTest runner restarted after a crash) — Restarting after unexpected exit"},
		{"fastlane_scan_early_testing_failure.log", 65, verdict.StatusCrash, verdict.CrashFatalError,
			[]string{"Swift precondition failure", "XCTest early unexpected exit", "XCTest runner exited before starting", "xcodebuild test failure"},
			"CRASHED (Swift precondition failure, exit 65) in AppDelegate.swift:19"},
		{"bitrise_xcodebuild-early-unexpected-exit_1.txt", 65, verdict.StatusCrash, verdict.CrashTestRunnerCrash,
			[]string{"XCTest early unexpected exit"}, "CRASHED (XCTest early unexpected exit, exit 65)"},
		{"fastlane_scan_parallel_testing_failure_2.log", 65, verdict.StatusCrash, verdict.CrashSimulatorCrash,
			[]string{"simulator crashed", "xcodebuild test execution failure"}, "CRASHED (simulator crashed, exit 65)"},
		{"bitrise_xcodebuild-test-runner-failed-to-initialize.txt", 65, verdict.StatusFailure, verdict.CrashTestRunnerCrash,
			[]string{"XCTest runner failed to initialize"}, "FAILED (exit 65)"},
		{"bitrise_xcodebuild-failed-to-background-test-runner.txt", 65, verdict.StatusFailure, verdict.CrashTestRunnerCrash,
			[]string{"XCTest failed to background runner"}, "Failed to background test runner"},
		{"bitrise_xcodebuild-failed-to-open-test-runner.txt", 65, verdict.StatusFailure, verdict.CrashTestRunnerCrash,
			[]string{"XCTest runner failed to launch"}, "Failed to install or launch the test runner"},
		{"bitrise_xcodebuild-compile-error.txt", 65, verdict.StatusFailure, verdict.CrashBuildFailure,
			[]string{"compiler error", "xcodebuild test failure"}, "FAILED (exit 65) — /Users/bitrise/develop/sample-apps-ios-with-bitrise-yml/BitriseSampleWithYML/AppDelegate.swift:20:13: error:"},
		{"bitrise_xcodebuild-UITest-timeout.txt", 65, verdict.StatusFailure, verdict.CrashTestFailure,
			[]string{"XCTest assertion failure", "xcodebuild test failure"}, "FAILED (exit 65)"},
		{"bitrise_xcodebuild-iPhoneSimulator-timeout.txt", 65, verdict.StatusFailure, verdict.CrashSimulatorCrash,
			[]string{"simulator failed to boot"}, "Timed out waiting 120 seconds for simulator to boot"},
		{"fastlane_scan_build_failure_xcbeautified.log", 65, verdict.StatusFailure, verdict.CrashBuildFailure,
			[]string{"xcodebuild build failure"}, "** TEST BUILD FAILED **"},
		{"xcmcp_linker-error-output.txt", 1, verdict.StatusFailure, verdict.CrashBuildFailure, []string{"linker error"}, "linker command failed"},
		{"xcpretty_raw_kiwi_compilation_fail.txt", 65, verdict.StatusFailure, verdict.CrashBuildFailure, []string{"compiler error"}, "use of undeclared identifier"},
		{"xcpretty_raw_kiwi_fail.txt", 65, verdict.StatusFailure, verdict.CrashTestFailure, []string{"XCTest assertion failure", "XCTest test failure"}, "FAILED (exit 65)"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			scan := scanFile(t, filepath.Join(fixtures, "xcodebuild", tt.file))
			v := verdict.Classify(verdict.Input{
				Result:   &spawn.Result{Exited: true, ExitCode: tt.exit, Argv: []string{"xcodebuild", "test"}},
				Scan:     scan,
				OutputID: "out-1",
			})
			if v.Status != tt.status || v.CrashType != tt.crash {
				t.Errorf("got %s/%s, want %s/%s: %s", v.Status, v.CrashType, tt.status, tt.crash, v.Line)
			}
			if !strings.Contains(v.Line, tt.line) {
				t.Errorf("line %q lacks %q", v.Line, tt.line)
			}
			for _, name := range tt.indicators {
				if !hasIndicator(v, name) {
					t.Errorf("indicator %q missing; got %v", name, names(v))
				}
			}
			if tt.status == verdict.StatusSuccess && len(v.Indicators) > 0 {
				t.Errorf("false positives on a clean log: %+v", v.Indicators)
			}
			// A search is suggested where it can find more than the
			// answer shows: not in an output of a few short lines.
			short := scan.Lines() <= 10 && scan.Bytes() <= 1024
			if v.Status != verdict.StatusSuccess && hasHint(v, "output_search") == short {
				t.Errorf("output_search hint %v for %d lines (%d bytes): %+v", !short, scan.Lines(), scan.Bytes(), v.Hints)
			}
		})
	}
}

func names(v verdict.Verdict) []string {
	var out []string
	for _, in := range v.Indicators {
		out = append(out, in.Name)
	}
	return out
}

func hasHint(v verdict.Verdict, tool string) bool {
	for _, h := range v.Hints {
		if h.Tool == tool {
			return true
		}
	}
	return false
}

// TestNoCrashIndicatorsInJUnitAndReports: the JUnit files describe test
// results and must not trip crash patterns by merely naming things.
func TestCleanCorpora(t *testing.T) {
	for _, f := range []string{
		"junit/go-junit-report_030-stdout-report.xml",
		"junit/go-junit-report_035-whitespace-report.xml",
		"xcodebuild/xcbeautify_demo_swift_testing_log.txt",
		"xcodebuild/xcmcp_swift-testing-output.txt",
		"xcodebuild/xcbeautify_spi_swift_testing_short_log.txt",
	} {
		t.Run(f, func(t *testing.T) {
			s := scanFile(t, filepath.Join(fixtures, f))
			for _, in := range s.Indicators() {
				if in.Crash {
					t.Errorf("crash indicator %q on line %d: %s", in.Name, in.LineNo, in.Line)
				}
			}
		})
	}
}
