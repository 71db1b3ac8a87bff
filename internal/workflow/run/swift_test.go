package run_test

import (
	"bytes"
	"fmt"
	"github.com/triage-dev/triage/internal/testutil"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil/fakexcode"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// The fake swift replays real `swift build` and `swift test` logs recorded
// by other projects (../shared/fixtures/PROVENANCE.tsv), whole or cut after
// a number of lines (a run whose output was lost there), with the exit
// status or signal such a run ends with.

const xcodebuildFixtures = "../../../../shared/fixtures/xcodebuild"

// recorded returns the path of a shared fixture log, or of its first n
// lines (n > 0) written to a temporary file.
func recorded(t *testing.T, name string, n int) string {
	t.Helper()
	return recordedLines(t, name, 1, n)
}

// recordedLines returns the path of a file holding lines from to n
// (1-based, inclusive) of a shared fixture log; n <= 0 is the whole log.
func recordedLines(t *testing.T, name string, from, n int) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join(xcodebuildFixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Skipf("%s absent: the shared fixtures are not checked out next to the repository", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	if n <= 0 {
		return path
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if n > len(lines) {
		t.Fatalf("%s has %d lines, not %d", name, len(lines), n)
	}
	cut := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(cut, bytes.Join(lines[from-1:n], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	return cut
}

// swiftPackage installs the fake swift with rules and returns a client and
// a package directory (a Package.swift the fake never reads: detection
// only needs it to be there).
func swiftPackage(t *testing.T, rules ...fakexcode.Rule) (*mcptest.Client, *fakexcode.Fake, string) {
	t.Helper()
	for i := range rules {
		rules[i].Tool = "swift"
	}
	fake := fakexcode.Install(t, fakexcode.Scenario{Rules: rules, Tools: []string{"swift"}})
	dir := nativeprojects.Write(t, map[string]string{"Package.swift": "// swift-tools-version:5.9\n"})
	return mcptest.Connect(t, nil), fake, dir
}

func TestSwiftPackageTestVerdicts(t *testing.T) {
	tests := []struct {
		name, log string
		lines     int // 0: the whole log
		exit      int
		signal    string
		outcome   string
		verdict   string   // the first line's prefix
		text      []string // in the answer
	}{
		{"all pass", "xcmcp_swift-testing-output.txt", 0, 0, "", "ok", "TESTS PASSED: 23 passed", nil},
		{"swift testing failures", "xcbeautify_spi_swift_testing_short_log.txt", 0, 1, "", "failed", "TESTS FAILED: 3 of 4 failed",
			[]string{"analyze_getPackageInfo_gitCheckout_error() [failed] at AnalyzeErrorTests.swift:120", "Caught error: PSQLError"}},
		{"xctest and swift testing failures", "xcbeautify_MixedTestLog_6_0_Linux.txt", 0, 1, "", "failed", "TESTS FAILED: 2 of 6 failed",
			[]string{"CaptureGroupTests testForceFailure [failed] at /home/runner/work/xcbeautify/xcbeautify/Tests/XcbeautifyLibTests/CaptureGroupTests.swift:34",
				"XCTAssertTrue failed - True is never false.", "testFailTrueIsFalse() [failed] at Test.swift:17"}},
		// 15 tests started, 8 passed: never a pass, with its status 0 or 1.
		{"cut among the tests", "xcmcp_swift-testing-output.txt", 80, 1, "", "failed",
			"TESTS FAILED: the run ended before LocaleUrlTag handles deep paths correctly in default locale finished ((swift-testing): the output ended) (and 14 more cut short)", nil},
		{"cut among the tests, exit 0", "xcmcp_swift-testing-output.txt", 80, 0, "", "failed",
			"TESTS FAILED: the run ended before LocaleUrlTag handles deep paths correctly in default locale finished", nil},
		// Every test has its verdict; the summary line is lost.
		{"cut before the summary", "xcbeautify_demo_swift_testing_log.txt", 12, 0, "", "failed",
			"TESTS FAILED: swift-testing ended without a result (the output ended before Swift Testing's summary", []string{"secondExample() [failed] at DemoSwiftTestingTests.swift:11"}},
		{"crash", "xcbeautify_spi_swift_testing_short_log.txt", 13, 0, "SIGSEGV", "failed",
			"CRASHED: test binary SIGSEGV", []string{"while running analyze_updateRepository_invalidPackageCachePath()"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fake, dir := swiftPackage(t, fakexcode.Rule{Match: []string{"test"}, StdoutFile: recorded(t, tt.log, tt.lines), Exit: tt.exit, Signal: tt.signal})
			r := c.Call("test", map[string]any{"project_dir": dir})
			if r.IsError || r.Outcome != tt.outcome || !strings.HasPrefix(r.FirstLine(), tt.verdict) {
				t.Fatalf("outcome %q verdict %q, want %q %q\n%s", r.Outcome, r.FirstLine(), tt.outcome, tt.verdict, r.Text)
			}
			for _, s := range tt.text {
				if !strings.Contains(r.Text, s) {
					t.Errorf("%q missing from the answer:\n%s", s, r.Text)
				}
			}
			// Serial: --parallel would hide the lines the verdict is read from.
			if call, ok := fake.Find(t, "swift", "test"); !ok || !slices.Equal(call.Argv, []string{"test"}) {
				t.Errorf("swift was run as %v, want [test]", fake.Calls(t))
			}
		})
	}
}

func TestSwiftPackageTestFilters(t *testing.T) {
	c, fake, dir := swiftPackage(t, fakexcode.Rule{Match: []string{"test"}, StdoutFile: recorded(t, "xcbeautify_spi_swift_testing_short_log.txt", 0), Exit: 1})
	r := c.Call("test", map[string]any{"project_dir": dir, "run": []string{"AnalyzeErrorTests"}, "skip": []string{"analyze_refreshCheckout_failed"}, "configuration": "release"})
	if r.Outcome != "failed" || r.FirstLine() != "TESTS FAILED: 3 of 4 failed" {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	want := []string{"test", "--configuration=release", "--filter=AnalyzeErrorTests", "--skip=analyze_refreshCheckout_failed"}
	if call, ok := fake.Find(t, "swift", "test"); !ok || !slices.Equal(call.Argv, want) {
		t.Errorf("swift was run as %v, want %v", fake.Calls(t), want)
	}
}

func TestSwiftPackageBuild(t *testing.T) {
	// The build part of a recorded `swift test`, up to "Build complete!".
	ok := recorded(t, "xcbeautify_spi_swift_testing_full_log.txt", 2203)
	c, fake, dir := swiftPackage(t,
		fakexcode.Rule{Match: []string{"build", "--target=Broken"}, StdoutFile: recorded(t, "xcmcp_linker-error-output.txt", 0), Exit: 1},
		fakexcode.Rule{Match: []string{"build"}, StdoutFile: ok},
		fakexcode.Rule{Match: []string{"package", "clean"}})
	r := c.Call("build", map[string]any{"project_dir": dir})
	if r.IsError || r.Outcome != "ok" || r.FirstLine() != "BUILD SUCCEEDED (5 warnings)" || !strings.Contains(r.Text, "Build complete! (51.50s)") {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	r = c.Call("build", map[string]any{"project_dir": dir, "targets": []string{"Broken"}})
	if r.Outcome != "failed" || r.FirstLine() != "BUILD FAILED: 4 errors: link command failed with exit code 1 (use -v to see invocation)" || !strings.Contains(r.Text, "__nonexistent_function") {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	if _, ok := fake.Find(t, "swift", "build", "--target=Broken"); !ok {
		t.Errorf("no swift build --target=Broken among %v", fake.Calls(t))
	}

	// clean: swift package clean (silent, as it is), then the build.
	before := len(fake.Calls(t))
	r = c.Call("build", map[string]any{"project_dir": dir, "clean": true})
	if r.Outcome != "ok" || r.FirstLine() != "BUILD SUCCEEDED (5 warnings)" || !strings.Contains(r.Text, "; clean exit 0 ") {
		t.Fatalf("build with clean: outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	var argvs [][]string
	for _, call := range fake.Calls(t)[before:] {
		argvs = append(argvs, call.Argv)
	}
	if want := [][]string{{"package", "clean"}, {"build"}}; !slices.EqualFunc(argvs, want, slices.Equal) {
		t.Errorf("build with clean ran swift %v, want %v", argvs, want)
	}
	// Only swift has a clean step; elsewhere the answer says what to do.
	r = c.Call("build", map[string]any{"project_dir": dir, "clean": true, "toolchain": "cargo"})
	if !r.IsError || !strings.Contains(r.Text, "only swift has it") {
		t.Errorf("clean on cargo: %s", r.Text)
	}
}

// runToEnd reads a background process's output until it ends, returning
// the last answer (with the verdict).
func runToEnd(t *testing.T, c *mcptest.Client, id string) mcptest.Result {
	t.Helper()
	out := c.Call("process_output", map[string]any{"id": id, "wait_s": 30})
	for out.Out["running"] == true { // each call waits for the next line or the end
		out = c.Call("process_output", map[string]any{"id": id, "cursor": out.Out["next_cursor"], "wait_s": 30})
	}
	return out
}

// swift run of an executable in the background: the fake prints the build
// lines of a recorded `swift test`, "Building for debugging..." to "Build
// complete!" (SwiftPM builds before it runs the executable), then
// exits, hangs (with a child, as the executable under swift run is), or
// dies by a signal.
func TestSwiftRunInBackground(t *testing.T) {
	build := recordedLines(t, "xcbeautify_spi_swift_testing_full_log.txt", 2156, 2203)
	pids := filepath.Join(t.TempDir(), "pids")
	c, fake, dir := swiftPackage(t,
		fakexcode.Rule{Match: []string{"run", "Exits"}, StdoutFile: build},
		fakexcode.Rule{Match: []string{"run", "Hangs"}, StdoutFile: build, Hang: true, PidFile: pids},
		fakexcode.Rule{Match: []string{"run", "Crashes"}, StdoutFile: build, Signal: "SIGSEGV"})
	start := func(name string) string {
		t.Helper()
		r := c.Call("process_start", map[string]any{"program": "swift", "args": []string{"run", name}, "project_dir": dir})
		id, _ := r.Out["id"].(string)
		if r.IsError || id == "" {
			t.Fatalf("process_start swift run %s:\n%s", name, r.Text)
		}
		return id
	}

	exits := start("Exits")
	if out := runToEnd(t, c, exits); !strings.HasPrefix(fmt.Sprint(out.Out["verdict"]), "SUCCEEDED (exit 0)") {
		t.Errorf("swift run Exits: verdict %q\n%s", out.Out["verdict"], out.Text)
	}
	crashes := start("Crashes")
	if out := runToEnd(t, c, crashes); !strings.HasPrefix(fmt.Sprint(out.Out["verdict"]), "CRASHED (SIGSEGV)") {
		t.Errorf("swift run Crashes: verdict %q\n%s", out.Out["verdict"], out.Text)
	}

	hangs := start("Hangs")
	out := c.Call("process_output", map[string]any{"id": hangs, "wait_s": 30})
	for !slices.Contains(out.Out["lines"].([]any), any("hanging")) && out.Out["running"] == true {
		out = c.Call("process_output", map[string]any{"id": hangs, "cursor": out.Out["next_cursor"], "wait_s": 30})
	}
	var leader, child int
	if raw, err := os.ReadFile(pids); err != nil {
		t.Fatalf("the hanging fake wrote no pids: %v\n%s", err, out.Text)
	} else if _, err := fmt.Sscan(string(raw), &leader, &child); err != nil {
		t.Fatalf("pids %q: %v", raw, err)
	}
	list := c.Call("process_list", nil)
	if !strings.Contains(list.Text, hangs) || !strings.Contains(list.Text, "1 running") || !strings.Contains(list.Text, "swift run Hangs") {
		t.Errorf("process_list:\n%s", list.Text)
	}
	stop := c.Call("process_stop", map[string]any{"id": hangs, "grace_s": 1})
	if !strings.HasPrefix(stop.FirstLine(), "INTERRUPTED") {
		t.Errorf("process_stop:\n%s", stop.Text)
	}
	// swift and the executable it started (the fake's child) both end.
	for _, pid := range []int{leader, child} {
		if !testutil.WaitGone(pid, 10*time.Second) {
			t.Errorf("pid %d still runs after process_stop", pid)
		}
	}
	if _, ok := fake.Find(t, "swift", "run", "Hangs"); !ok {
		t.Errorf("no swift run Hangs among %v", fake.Calls(t))
	}
}
