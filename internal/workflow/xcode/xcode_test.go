package xcode_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/fakexcode"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/session"
	xcodewf "github.com/triage-dev/triage/internal/workflow/xcode"
	"github.com/triage-dev/triage/internal/xcode"
)

// bundleRules answer xcresulttool for a result bundle.
func bundleRules(t *testing.T, summary, tests string) []fakexcode.Rule {
	return []fakexcode.Rule{
		{Tool: "xcrun", Match: []string{"xcresulttool", "get", "test-results", "summary"}, StdoutFile: testdata(t, summary)},
		{Tool: "xcrun", Match: []string{"xcresulttool", "get", "test-results", "tests"}, StdoutFile: testdata(t, tests)},
	}
}

type testOutput struct {
	Status       string
	ResultBundle string `json:"result_bundle"`
	XCResult     *xcode.TestSummary
	CrashReports []xcode.CrashReport `json:"crash_reports"`
	Notes        []string
}

func TestResultBundleCountsAndCrashFailure(t *testing.T) {
	log := fixture(t, "xcodebuild", "xcbeautify_MixedTestLog_6_0_macOS.txt")
	e := newEnv(t, append([]fakexcode.Rule{
		{Tool: "xcodebuild", Match: []string{"test"}, StdoutFile: log, Exit: 65, ResultBundle: true},
	}, bundleRules(t, "xcresult_summary_failed.json", "xcresult_tests.json")...)...)
	r := e.c.Call("xcode_test", e.args(map[string]any{"only_testing": []string{"AppTests/ParserTests"}}))
	// The bundle records a crash in testDecodesBody: that is the verdict,
	// with the bundle's counts.
	want := "CRASHED: testDecodesBody() — Crash: Crashy (4242) at Parser.decode(_:) + 120 (2 of 9 failed)"
	if r.Outcome != "failed" || r.FirstLine() != want {
		t.Fatalf("verdict %q (%s), want %q\n%s", r.FirstLine(), r.Outcome, want, r.Text)
	}
	var out testOutput
	r.Decode(t, &out)
	if out.XCResult == nil || out.XCResult.Total != 9 || out.ResultBundle == "" {
		t.Errorf("xcresult %+v, bundle %q", out.XCResult, out.ResultBundle)
	}
	for _, s := range []string{"testParsesHeader() [failed]", "XCTAssertEqual failed", "(result bundle)"} {
		if !strings.Contains(r.Text, s) {
			t.Errorf("text lacks %q:\n%s", s, r.Text)
		}
	}
	call, ok := e.fake.Find(t, "xcodebuild", "test", "-only-testing:AppTests/ParserTests", "-resultBundlePath")
	if !ok {
		t.Fatalf("no xcodebuild test call with the selection and a result bundle: %+v", e.fake.Calls(t))
	}
	if i := slices.Index(call.Argv, "-resultBundlePath"); !strings.HasSuffix(call.Argv[i+1], ".xcresult") {
		t.Errorf("result bundle path %q", call.Argv[i+1])
	}
}

func TestBundlePassedButRunnerCrashedIsACrash(t *testing.T) {
	log := fixture(t, "xcodebuild", "xcbeautify_TestLog.txt")
	e := newEnv(t, append([]fakexcode.Rule{
		{Tool: "xcodebuild", Match: []string{"test"}, StdoutFile: log, Exit: 0, ResultBundle: true},
	}, bundleRules(t, "xcresult_summary_passed.json", "xcresult_tests.json")...)...)
	r := e.c.Call("xcode_test", e.args(nil))
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "CRASHED: SwiftTests.testExample() crashed") {
		t.Fatalf("verdict %q (%s)\n%s", r.FirstLine(), r.Outcome, r.Text)
	}
}

func TestLegacyResultBundleFallback(t *testing.T) {
	log := fixture(t, "xcodebuild", "bitrise_xcodebuild-ok.txt")
	e := newEnv(t,
		fakexcode.Rule{Tool: "xcodebuild", Match: []string{"test"}, StdoutFile: log, ResultBundle: true},
		fakexcode.Rule{Tool: "xcrun", Match: []string{"xcresulttool", "get", "test-results"}, Stderr: "Error: Unknown option 'test-results'\n", Exit: 64},
		fakexcode.Rule{Tool: "xcrun", Match: []string{"xcresulttool", "get", "--legacy"}, StdoutFile: testdata(t, "xcresult_legacy.json")},
	)
	r := e.c.Call("xcode_test", e.args(nil))
	var out testOutput
	r.Decode(t, &out)
	if out.XCResult == nil || !out.XCResult.Legacy {
		t.Fatalf("the legacy bundle was not read: %+v\n%s", out, r.Text)
	}
	// The legacy bundle records failures the log did not show: they win.
	if out.XCResult.Failed > 0 && (r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "TESTS FAILED: ")) {
		t.Errorf("verdict %q (%s) despite %d failures in the bundle", r.FirstLine(), r.Outcome, out.XCResult.Failed)
	}
}

func TestNoResultBundleSaysSo(t *testing.T) {
	log := fixture(t, "xcodebuild", "bitrise_xcodebuild-ok.txt")
	e := newEnv(t, fakexcode.Rule{Tool: "xcodebuild", Match: []string{"test"}, StdoutFile: log})
	r := e.c.Call("xcode_test", e.args(nil))
	if r.Outcome != "ok" || r.FirstLine() != "TESTS PASSED: 3 passed" || !strings.Contains(r.Text, "no result bundle") {
		t.Fatalf("verdict %q (%s)\n%s", r.FirstLine(), r.Outcome, r.Text)
	}
}

// TestCrashReportsCorrelated: every crash report fixture is written during
// a failing run and must come back as evidence, except those of processes
// the run does not involve.
func TestCrashReportsCorrelated(t *testing.T) {
	reports := fixture(t, "crash-reports")
	log := fixture(t, "xcodebuild", "bitrise_xcodebuild-failure-attempting-tolaunch.txt")
	cases := []struct {
		report, scheme string
		process, role  string // "" role: not correlated
	}{
		{"idb_xctest-concated-json-crash.ips", "App", "xctest3", "test runner"},
		{"maestro_MemoryLeakingApp-2022-08-05-132419.ips", "MemoryLeakingApp", "MemoryLeakingApp", "app"},
		{"llvm_lldb_asi_nsexception.ips", "asi", "asi", "app"},
		{"idb_app_custom_set.crash", "TableSearch", "TableSearch", "app"},
		{"sentry_acrp_bruno.crash", "App", "", ""},
		{"maestro_ReportCrash_non_symbolicated.crash", "App", "", ""},
		{"sentry_acrp_XCDYouTubeKit-54.crash", "App", "", ""},
		{"idb_agent_custom_set.crash", "App", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.report, func(t *testing.T) {
			e := newEnv(t)
			path := filepath.Join(reports, tc.report)
			e.fake = fakexcode.Install(t, fakexcode.Scenario{Rules: []fakexcode.Rule{
				{Tool: "xcodebuild", Match: []string{"-list", "-json"}, Stdout: listJSON},
				{Tool: "xcodebuild", Match: []string{"test"}, StdoutFile: log, Exit: 65, Reports: []string{path}, ReportDir: e.reportDir},
			}})
			r := e.c.Call("xcode_test", e.args(map[string]any{"scheme": tc.scheme}))
			var out testOutput
			r.Decode(t, &out)
			if tc.role == "" {
				if len(out.CrashReports) > 0 || !strings.HasPrefix(r.FirstLine(), "TESTS FAILED: 1 of 3 failed") {
					t.Fatalf("an unrelated report was correlated: %+v\n%s", out.CrashReports, r.FirstLine())
				}
				return
			}
			if len(out.CrashReports) != 1 {
				t.Fatalf("crash reports %+v\n%s", out.CrashReports, r.Text)
			}
			cr := out.CrashReports[0]
			if cr.Process != tc.process || cr.Role != tc.role || cr.Summary == "" {
				t.Errorf("report %+v, want process %s role %s", cr, tc.process, tc.role)
			}
			// A failed run during which the app or runner crashed crashed.
			if out.Status != "crashed" || !strings.HasPrefix(r.FirstLine(), "CRASHED: "+tc.role+" "+tc.process) {
				t.Errorf("verdict %q, status %s", r.FirstLine(), out.Status)
			}
			if !strings.Contains(r.Text, "crash_report_show") || !strings.Contains(r.Text, cr.Path) {
				t.Errorf("text does not show the report:\n%s", r.Text)
			}
		})
	}
}

func TestReportsBeforeTheRunAreIgnored(t *testing.T) {
	reports := fixture(t, "crash-reports")
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(reports, "idb_xctest-concated-json-crash.ips"))
	if err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "xctest-old.ips")
	if err := os.WriteFile(old, data, 0o644); err != nil {
		t.Fatal(err)
	}
	past := mustParseTime(t, "2020-01-02T03:04:05Z")
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	if got := xcode.Correlate(context.Background(), []string{dir}, past.AddDate(1, 0, 0), []string{"App"}); len(got) != 0 {
		t.Errorf("a report older than the run was correlated: %+v", got)
	}
	if got := xcode.Correlate(context.Background(), []string{dir}, past, nil); len(got) != 1 || got[0].Role != "test runner" {
		t.Errorf("the report written during the run: %+v", got)
	}
}

func TestXcodebuildKilledBySIGSEGV(t *testing.T) {
	e := newEnv(t, fakexcode.Rule{Tool: "xcodebuild", Match: []string{"build"}, Stdout: "Build settings from command line:\n    SDKROOT = iphonesimulator\n", Signal: "SIGSEGV"})
	r := e.c.Call("xcode_build", e.args(nil))
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "CRASHED") || !strings.Contains(r.FirstLine(), "SIGSEGV") {
		t.Fatalf("verdict %q (%s)\n%s", r.FirstLine(), r.Outcome, r.Text)
	}
	if !strings.Contains(r.Text, "xcodebuild killed by SIGSEGV") {
		t.Errorf("summary does not name the signal:\n%s", r.Text)
	}
}

func TestHungXcodebuildTimesOutWithoutOrphans(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	e := newEnv(t, fakexcode.Rule{Tool: "xcodebuild", Match: []string{"test"}, Stdout: "Testing started\n", Hang: true, IgnoreTerm: true, PidFile: pidFile})
	r := e.c.Call("xcode_test", e.args(map[string]any{"timeout_s": 1}))
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "TIMED OUT after") {
		t.Fatalf("verdict %q (%s)\n%s", r.FirstLine(), r.Outcome, r.Text)
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the fake never hung: %v", err)
	}
	for _, f := range strings.Fields(string(raw)) {
		pid, _ := strconv.Atoi(f)
		if testutil.ProcessAlive(pid) {
			t.Errorf("pid %d outlived the timeout", pid)
		}
	}
}

func TestBadInput(t *testing.T) {
	devices := testdata(t, "simctl_devices.json")
	e := newEnv(t,
		fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "list", "devices"}, StdoutFile: devices},
		fakexcode.Rule{Tool: "xcodebuild", Match: []string{"build"}, Stdout: "** BUILD SUCCEEDED **\n"},
	)
	ws := filepath.Join(t.TempDir(), "App.xcworkspace")
	cases := []struct {
		name  string
		tool  string
		args  map[string]any
		shows []string
	}{
		{"workspace and project", "xcode_build", e.args(map[string]any{"workspace_path": ws}), []string{"workspace_path", "project_path"}},
		{"unknown scheme", "xcode_build", e.args(map[string]any{"scheme": "Nope"}), []string{`scheme "Nope" not found`, "App, AppUITests"}},
		{"simulator matching nothing", "xcode_test", e.args(map[string]any{"simulator_name": "iPhone 99"}), []string{"iPhone 99", "iPhone 16 (iOS 18.2)"}},
		{"simulator matching several", "xcode_test", e.args(map[string]any{"simulator_name": "iPhone 16"}), []string{"2 simulators", "4C000000-0000-4000-8000-000000000180", "5D000000-0000-4000-8000-000000000182"}},
		{"not a project", "xcode_list_schemes", map[string]any{"project_path": "/tmp/App.txt"}, []string{"not a .xcodeproj"}},
		{"option as scheme", "xcode_build", e.args(map[string]any{"scheme": "-quiet"}), []string{"starts with '-'"}},
		{"test options on build", "xcode_build", e.args(map[string]any{"platform": "iOS"}), nil},
		{"generic destination for tests", "xcode_test", e.args(map[string]any{"platform": "iOS"}), []string{"concrete destination"}},
		{"no scheme", "xcode_build", map[string]any{"project_path": e.project}, []string{"scheme"}},
		{"bad level", "xcode_build", e.args(map[string]any{"level": "loud"}), []string{"minimal, standard or verbose"}},
		{"discover a file", "xcode_discover_projects", map[string]any{"dir": devices}, []string{"not a directory"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.c.Call(tc.tool, tc.args)
			if tc.shows == nil { // a valid call, for contrast
				if r.IsError {
					t.Fatalf("%s", r.Text)
				}
				return
			}
			if !r.IsError || r.Outcome != "usage_error" {
				t.Fatalf("outcome %q, error %v: %s", r.Outcome, r.IsError, r.Text)
			}
			for _, s := range tc.shows {
				if !strings.Contains(r.Text, s) {
					t.Errorf("message lacks %q: %s", s, r.Text)
				}
			}
		})
	}
	if _, ok := e.fake.Find(t, "xcodebuild", "-scheme", "Nope"); ok {
		t.Error("xcodebuild ran with an unknown scheme")
	}
}

func TestSimulatorNameResolvedToID(t *testing.T) {
	e := newEnv(t,
		fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "list", "devices"}, StdoutFile: testdata(t, "simctl_devices.json")},
		fakexcode.Rule{Tool: "xcodebuild", Match: []string{"build"}, Stdout: "** BUILD SUCCEEDED **\n"},
	)
	// Two "iPhone 16 Pro" exist; only one is booted, and it wins.
	r := e.c.Call("xcode_build", e.args(map[string]any{"simulator_name": "iPhone 16 Pro"}))
	if r.Outcome != "ok" {
		t.Fatalf("%s: %s", r.Outcome, r.Text)
	}
	if _, ok := e.fake.Find(t, "xcodebuild", "-destination", "platform=iOS Simulator,id=6E000000-0000-4000-8000-000000000182"); !ok {
		t.Errorf("destination not by id: %+v", e.fake.Calls(t))
	}
}

func TestSessionDefaults(t *testing.T) {
	e := newEnv(t, fakexcode.Rule{Tool: "xcodebuild", Match: []string{"clean"}, Stdout: "** CLEAN SUCCEEDED **\n"})
	if r := e.c.Call("session_set_defaults", map[string]any{"project_path": e.project, "scheme": "AppUITests", "configuration": "Release"}); r.IsError {
		t.Fatal(r.Text)
	}
	r := e.c.Call("xcode_clean", map[string]any{})
	if r.Outcome != "ok" {
		t.Fatalf("%s: %s", r.Outcome, r.Text)
	}
	if _, ok := e.fake.Find(t, "xcodebuild", "-project", e.project, "-scheme", "AppUITests", "-configuration", "Release", "clean"); !ok {
		t.Errorf("defaults not applied: %+v", e.fake.Calls(t))
	}
}

func TestListSchemesAndBuildSettings(t *testing.T) {
	e := newEnv(t, fakexcode.Rule{Tool: "xcodebuild", Match: []string{"-showBuildSettings", "-json"}, StdoutFile: testdata(t, "build_settings.json")})
	r := e.c.Call("xcode_list_schemes", map[string]any{"project_path": e.project})
	if r.IsError || !strings.HasPrefix(r.FirstLine(), "5 SCHEMES in project App: App, AppUITests") {
		t.Fatalf("%s", r.Text)
	}
	r = e.c.Call("xcode_show_build_settings", e.args(map[string]any{"keys": []string{"PRODUCT_BUNDLE_IDENTIFIER", "NO_SUCH_KEY"}}))
	if r.IsError || !strings.Contains(r.Text, "app: /Users/dev/Library/Caches/triage/DerivedData/Crashy-0a1b2c3d4e5f6071/Build/Products/Debug-iphonesimulator/Crashy.app (bundle id dev.triage.Crashy)") ||
		!strings.Contains(r.Text, "not set: NO_SUCH_KEY") {
		t.Fatalf("%s", r.Text)
	}
}

func TestDiscoverProjects(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{
		"App.xcworkspace", "App.xcodeproj/project.xcworkspace", "Pods/Pods.xcodeproj",
		"Packages/Kit/.build/checkouts/X/X.xcodeproj", "build/DerivedData/Y.xcodeproj",
		"Examples/Demo/Demo.xcodeproj", "a/b/c/d/e/Deep.xcodeproj",
	} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e := newEnv(t)
	r := e.c.Call("xcode_discover_projects", map[string]any{"dir": root})
	var out xcodewf.DiscoverOutput
	r.Decode(t, &out)
	wantWS := []string{filepath.Join(root, "App.xcworkspace")}
	wantProj := []string{filepath.Join(root, "App.xcodeproj"), filepath.Join(root, "Examples/Demo/Demo.xcodeproj")}
	if !slices.Equal(out.Workspaces, wantWS) || !slices.Equal(out.Projects, wantProj) {
		t.Errorf("found %+v, want %v %v", out, wantWS, wantProj)
	}
	r = e.c.Call("xcode_discover_projects", map[string]any{"dir": root, "max_depth": 6})
	r.Decode(t, &out)
	if !slices.Contains(out.Projects, filepath.Join(root, "a/b/c/d/e/Deep.xcodeproj")) {
		t.Errorf("max_depth 6 missed the deep project: %+v", out)
	}
}

// TestUnavailableOffMacOS: with the real availability check on Linux the
// tools are hidden, and calling one says why.
func TestUnavailableOffMacOS(t *testing.T) {
	if xcode.Available() == nil {
		t.Skip("xcodebuild is available here")
	}
	c := mcptest.ConnectCatalog(t, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{session.Workflow(svc), xcodewf.Workflow(svc)}
	})
	if tools := c.Tools(); slices.Contains(tools, "xcode_build") {
		t.Errorf("xcode_build listed off macOS: %v", tools)
	}
	r := c.Call("xcode_build", map[string]any{"scheme": "App"})
	if !r.IsError || !strings.Contains(r.Text, "requires macOS with Xcode") {
		t.Errorf("calling an unavailable tool: %s", r.Text)
	}
}

// TestHungTestRunnerNamesTheRunningTest: the test runner hangs in a test
// (its process is in the simulator, out of reach); the verdict names the
// test that started and never finished, and triage takes no stacks of
// xcodebuild, which would only show xcodebuild waiting.
func TestHungTestRunnerNamesTheRunningTest(t *testing.T) {
	log := "Testing started\n" +
		"Test Suite 'All tests' started at 2026-11-25 10:00:00.000.\n" +
		"Test Suite 'HangTests' started at 2026-11-25 10:00:00.001.\n" +
		"Test Case '-[AppTests.HangTests testFast]' started.\n" +
		"Test Case '-[AppTests.HangTests testFast]' passed (0.001 seconds).\n" +
		"Test Case '-[AppTests.HangTests testWaitsForever]' started.\n"
	e := newEnv(t, fakexcode.Rule{Tool: "xcodebuild", Match: []string{"test"}, Stdout: log, Hang: true})
	r := e.c.Call("xcode_test", e.args(map[string]any{"timeout_s": 2}))
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "TIMED OUT after") || !strings.Contains(r.FirstLine(), "testWaitsForever") {
		t.Fatalf("verdict %q (%s)\n%s", r.FirstLine(), r.Outcome, r.Text)
	}
	if strings.Contains(r.Text, "goroutine") || strings.Contains(r.Text, "hang.go") {
		t.Errorf("the answer shows xcodebuild's own stacks:\n%s", r.Text)
	}
}

// TestStoreFailure: an xcodebuild log the store cannot take leaves the
// verdict as it is, makes the outcome an error and says so.
func TestStoreFailure(t *testing.T) {
	for _, tool := range []string{"xcode_build", "xcode_test"} {
		t.Run(tool, func(t *testing.T) {
			e := newEnv(t,
				fakexcode.Rule{Tool: "xcodebuild", Match: []string{"build"}, Stdout: "CompileC main.o\n** BUILD SUCCEEDED **\n"},
				fakexcode.Rule{Tool: "xcodebuild", Match: []string{"test"}, StdoutFile: fixture(t, "xcodebuild", "xcbeautify_MixedTestLog_6_0_macOS.txt"), Exit: 65},
			)
			e.c.BreakStore()
			verdict := map[string]string{"xcode_build": "BUILD SUCCEEDED", "xcode_test": "TESTS FAILED"}[tool]
			e.c.Call(tool, e.args(nil)).CheckNotStoredWhole(t, verdict)
		})
	}
}

// TestDeviceDestination: device_id (a session default, here a name) builds
// for and tests on the physical device devicectl knows by it, by its UDID; an
// explicit simulator drops the default device; a device devicectl does not
// know is refused before xcodebuild runs. The device list is a recorded
// devicectl answer (internal/xcode/testdata/devicectl/PROVENANCE.tsv).
func TestDeviceDestination(t *testing.T) {
	e := newEnv(t,
		fakexcode.Rule{Tool: "xcrun", Match: []string{"devicectl", "list", "devices"}, WriteAfter: "--json-output", WriteFile: testdata(t, "devicectl/list_devices.json")},
		fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "list", "devices"}, StdoutFile: testdata(t, "simctl_devices.json")},
		fakexcode.Rule{Tool: "xcodebuild", Match: []string{"build"}, Stdout: "** BUILD SUCCEEDED **\n"},
	)
	if r := e.c.Call("session_set_defaults", map[string]any{"device_id": "iPhone", "platform": "iOS"}); r.IsError {
		t.Fatal(r.Text)
	}
	if r := e.c.Call("xcode_build", e.args(nil)); r.Outcome != "ok" {
		t.Fatalf("%s: %s", r.Outcome, r.Text)
	}
	if _, ok := e.fake.Find(t, "xcodebuild", "-destination", "platform=iOS,id=00008120-0014485601E3C01E", "build"); !ok {
		t.Errorf("destination not the device: %+v", e.fake.Calls(t))
	}
	if r := e.c.Call("xcode_build", e.args(map[string]any{"simulator_name": "iPhone 16 Pro", "platform": "iOS Simulator"})); r.Outcome != "ok" {
		t.Fatalf("explicit simulator: %s: %s", r.Outcome, r.Text)
	}
	// Tests run on the device the same way (a recorded passing log).
	e.fake = fakexcode.Install(t, fakexcode.Scenario{Rules: []fakexcode.Rule{
		{Tool: "xcodebuild", Match: []string{"-list", "-json"}, Stdout: listJSON},
		{Tool: "xcrun", Match: []string{"devicectl", "list", "devices"}, WriteAfter: "--json-output", WriteFile: testdata(t, "devicectl/list_devices.json")},
		{Tool: "xcodebuild", Match: []string{"-destination", "platform=iOS,id=00008120-0014485601E3C01E", "test"}, StdoutFile: fixture(t, "xcodebuild", "bitrise_xcodebuild-ok.txt")},
	}})
	if r := e.c.Call("xcode_test", e.args(nil)); r.Outcome != "ok" || r.FirstLine() != "TESTS PASSED: 3 passed" {
		t.Errorf("test on the device: %s: %s", r.Outcome, r.Text)
	}
	r := e.c.Call("xcode_build", e.args(map[string]any{"device_id": "Nobody's iPad"}))
	if r.Outcome != "usage_error" || !strings.Contains(r.Text, `no device "Nobody's iPad"; devicectl knows:`) {
		t.Errorf("unknown device: %s: %s", r.Outcome, r.Text)
	}
}
