package xcode

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testreport"
)

func isMacWithXcode() bool {
	_, err := exec.LookPath("xcodebuild")
	return runtime.GOOS == "darwin" && err == nil
}

func sample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hostile are inputs every parser must refuse with an error, never a panic
// or an empty success.
var hostile = map[string]string{
	"empty":       "",
	"blank":       " \n\t",
	"not json":    "xcodebuild: error: 'Crashy.xcodeproj' does not exist.",
	"truncated":   `{"project": {"name": "Crashy", "schemes": ["Cra`,
	"null":        "null",
	"empty obj":   "{}",
	"empty array": "[]",
	"wrong shape": `{"project": "Crashy"}`,
	"number":      "42",
}

func TestHostileInputs(t *testing.T) {
	parsers := map[string]func([]byte) error{
		"ParseList":          func(b []byte) error { _, err := ParseList(b); return err },
		"ParseBuildSettings": func(b []byte) error { _, err := ParseBuildSettings(b); return err },
		"ParseDevices":       func(b []byte) error { _, err := ParseDevices(b); return err },
		"ParseRuntimes":      func(b []byte) error { _, err := ParseRuntimes(b); return err },
		"ParseSummary":       func(b []byte) error { _, err := ParseSummary(b); return err },
		"ParseTests":         func(b []byte) error { _, err := ParseTests(b); return err },
		"ParseLegacy":        func(b []byte) error { _, err := ParseLegacy(b); return err },
	}
	for pname, parse := range parsers {
		for iname, in := range hostile {
			t.Run(pname+"/"+iname, func(t *testing.T) {
				err := parse([]byte(in))
				if err == nil {
					t.Fatal("no error")
				}
				if strings.TrimSpace(in) == "" && !errors.Is(err, ErrNoOutput) {
					t.Errorf("error %v for empty input, want ErrNoOutput", err)
				}
			})
		}
	}
}

func TestParseListProject(t *testing.T) {
	l, err := ParseList(sample(t, "list_project.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := &List{Kind: "project", Name: "Crashy", Schemes: []string{"Crashy", "CrashyKit"},
		Targets: []string{"Crashy", "CrashyKit", "CrashyTests", "CrashyUITests"}, Configurations: []string{"Debug", "Release"}}
	if !reflect.DeepEqual(l, want) {
		t.Errorf("got %+v\nwant %+v", l, want)
	}
	if err := l.CheckScheme("Crashy"); err != nil {
		t.Error(err)
	}
	var se *SchemeError
	if err := l.CheckScheme("crashy"); !errors.As(err, &se) || !strings.Contains(err.Error(), "Crashy, CrashyKit") {
		t.Errorf("CheckScheme(crashy) = %v, want a SchemeError listing the schemes", err)
	}
}

func TestParseListWorkspaceAfterWarning(t *testing.T) {
	l, err := ParseList(sample(t, "list_workspace.json"))
	if err != nil {
		t.Fatal(err)
	}
	if l.Kind != "workspace" || l.Name != "Crashy" || len(l.Schemes) != 3 || l.Targets != nil {
		t.Errorf("got %+v", l)
	}
	empty, err := ParseList([]byte(`{"workspace": {"name": "Empty"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := empty.CheckScheme("X"); err == nil || !strings.Contains(err.Error(), "no shared schemes") {
		t.Errorf("CheckScheme on a scheme-less workspace = %v", err)
	}
}

func TestParseBuildSettingsAndApp(t *testing.T) {
	ts, err := ParseBuildSettings(sample(t, "build_settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 4 {
		t.Fatalf("%d targets, want 4", len(ts))
	}
	products := Products(ts)
	if len(products) != 3 {
		t.Errorf("%d products, want 3 (the aggregate target has none): %+v", len(products), products)
	}
	dir := "/Users/dev/Library/Caches/triage/DerivedData/Crashy-0a1b2c3d4e5f6071/Build/Products/Debug-iphonesimulator"
	want := Product{Target: "Crashy", Path: dir + "/Crashy.app", Executable: dir + "/Crashy.app/Crashy",
		BundleID: "dev.triage.Crashy", ProductType: "com.apple.product-type.application", Platform: "iphonesimulator"}
	for _, target := range []string{"", "Crashy"} {
		app, err := App(ts, target)
		if err != nil {
			t.Fatal(err)
		}
		if app != want {
			t.Errorf("App(%q) = %+v\nwant %+v", target, app, want)
		}
	}
	if _, err := App(ts, "CrashyKit"); !errors.Is(err, ErrNoApp) || !strings.Contains(err.Error(), "CrashyKit.framework") {
		t.Errorf("App(CrashyKit) = %v, want ErrNoApp naming the framework", err)
	}
	if _, err := App(ts, "Nope"); !errors.Is(err, ErrNoApp) || !strings.Contains(err.Error(), "applications: Crashy") {
		t.Errorf("App(Nope) = %v", err)
	}
	two := append(ts, TargetSettings{Target: "Other", BuildSettings: map[string]string{"TARGET_BUILD_DIR": "/b", "FULL_PRODUCT_NAME": "Other.app"}})
	if _, err := App(two, ""); err == nil || !strings.Contains(err.Error(), "Crashy, Other") {
		t.Errorf("App with two apps = %v, want an error listing both", err)
	}
	if _, err := App(ts[1:2], ""); !errors.Is(err, ErrNoApp) || !strings.Contains(err.Error(), "CrashyKit") {
		t.Errorf("App without apps = %v", err)
	}
	if _, err := ParseBuildSettings([]byte(`[{"target": "A"}]`)); err == nil {
		t.Error("entry without buildSettings accepted")
	}
}

func TestParseDevices(t *testing.T) {
	devs, err := ParseDevices(sample(t, "simctl_devices.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 9 {
		t.Fatalf("%d devices, want 9", len(devs))
	}
	// iOS newest first, then watchOS.
	var order []string
	for _, d := range devs {
		order = append(order, d.RuntimeName())
	}
	want := []string{"iOS 18.2", "iOS 18.2", "iOS 18.2", "iOS 18.0", "iOS 18.0", "iOS 17.5", "iOS 17.5", "iOS 16.4", "watchOS 11.0"}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	d := devs[0]
	if d.Name != "iPhone 16" || d.UDID != "5D000000-0000-4000-8000-000000000182" || !d.Available || d.Booted() ||
		d.Runtime != "com.apple.CoreSimulator.SimRuntime.iOS-18-2" || d.DeviceType != "com.apple.CoreSimulator.SimDeviceType.iPhone-16" {
		t.Errorf("first device %+v", d)
	}
	old := devs[7]
	if old.Available || !strings.Contains(old.String(), "unavailable: runtime profile not found") {
		t.Errorf("unavailable device: %+v, %s", old, old)
	}
}

func TestParseDevicesXcode9(t *testing.T) {
	devs, err := ParseDevices(sample(t, "simctl_devices_xcode9.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 3 || devs[0].RuntimeName() != "iOS 11.4" || !devs[0].Available || devs[2].Available {
		t.Errorf("got %+v", devs)
	}
}

func TestParseRuntimeKey(t *testing.T) {
	tests := []struct{ key, os, ver string }{
		{"com.apple.CoreSimulator.SimRuntime.iOS-18-0", "iOS", "18.0"},
		{"com.apple.CoreSimulator.SimRuntime.xrOS-2-1", "xrOS", "2.1"},
		{"com.apple.CoreSimulator.SimRuntime.watchOS-11-0-1", "watchOS", "11.0.1"},
		{"iOS 12.1", "iOS", "12.1"},
		{"com.apple.CoreSimulator.SimRuntime.iOS", "", ""},
		{"com.apple.CoreSimulator.SimRuntime.iOS-beta-1", "", ""},
		{"com.apple.CoreSimulator.SimRuntime.iOS-", "", ""},
		{"iOS", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		os, ver := parseRuntimeKey(tt.key)
		if os != tt.os || ver != tt.ver {
			t.Errorf("parseRuntimeKey(%q) = %q, %q; want %q, %q", tt.key, os, ver, tt.os, tt.ver)
		}
	}
	for _, c := range []struct {
		a, b string
		want int
	}{{"18.10", "18.2", 1}, {"18", "18.0", 0}, {"17.5", "18.0", -1}, {"x", "1", -1}} {
		if got := compareVersions(c.a, c.b); got != c.want {
			t.Errorf("compareVersions(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestParseRuntimes(t *testing.T) {
	rts, err := ParseRuntimes(sample(t, "simctl_runtimes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rts {
		names = append(names, r.Name)
	}
	if want := []string{"iOS 18.2", "iOS 18.0", "iOS 17.5", "watchOS 11.0"}; !reflect.DeepEqual(names, want) {
		t.Errorf("runtimes %v, want %v", names, want)
	}
	if rts[1].BuildVersion != "22A3351" || !rts[1].Available || rts[3].Available {
		t.Errorf("got %+v", rts)
	}
	if _, err := ParseRuntimes([]byte(`{"runtimes": [{"name": "iOS 18.0"}]}`)); err == nil {
		t.Error("runtime without identifier accepted")
	}
}

func TestResolveSimulator(t *testing.T) {
	devs, err := ParseDevices(sample(t, "simctl_devices.json"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		q    SimulatorQuery
		udid string // "" when an error is expected
		msg  string
	}{
		{"unique name", SimulatorQuery{Name: "iPad Air 11-inch (M2)"}, "2A000000-0000-4000-8000-000000000175", ""},
		{"case-insensitive fallback", SimulatorQuery{Name: "ipad air 11-inch (m2)"}, "2A000000-0000-4000-8000-000000000175", ""},
		{"name on two runtimes", SimulatorQuery{Name: "iPhone 16"}, "", "2 simulators are named \"iPhone 16\": iPhone 16 (iOS 18.2"},
		{"OS pins it", SimulatorQuery{Name: "iPhone 16", OS: "18.0"}, "4C000000-0000-4000-8000-000000000180", ""},
		{"OS major", SimulatorQuery{Name: "iPhone 15", OS: "17"}, "1D2C5E0A-0000-4000-8000-000000000175", ""},
		{"latest", SimulatorQuery{Name: "iPhone 16", OS: "latest"}, "5D000000-0000-4000-8000-000000000182", ""},
		{"prefer newest", SimulatorQuery{Name: "iPhone 15", PreferNewest: true}, "3B000000-0000-4000-8000-000000000180", ""},
		{"prefer booted", SimulatorQuery{Name: "iPhone 15", PreferBooted: true}, "1D2C5E0A-0000-4000-8000-000000000175", ""},
		{"booted beats newest", SimulatorQuery{Name: "iPhone 15", PreferBooted: true, PreferNewest: true}, "1D2C5E0A-0000-4000-8000-000000000175", ""},
		{"same runtime twice, booted", SimulatorQuery{Name: "iPhone 16 Pro", PreferBooted: true}, "6E000000-0000-4000-8000-000000000182", ""},
		{"same runtime twice, newest cannot choose", SimulatorQuery{Name: "iPhone 16 Pro", PreferNewest: true}, "", "2 simulators"},
		{"OS name filter", SimulatorQuery{Name: "iPhone 16", OSName: "watchOS"}, "", "no available simulator named \"iPhone 16\" on watchOS"},
		{"unknown name lists candidates", SimulatorQuery{Name: "iPhone 99"}, "", "available: Apple Watch Series 10 (46mm) (watchOS 11.0), iPad Air"},
		{"unavailable only", SimulatorQuery{Name: "iPhone 14"}, "", "runtime profile not found"},
		{"OS not installed", SimulatorQuery{Name: "iPhone 16", OS: "19.0"}, "", "no available simulator"},
		{"no name", SimulatorQuery{}, "", "no name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ResolveSimulator(devs, tt.q)
			if tt.udid != "" {
				if err != nil || d.UDID != tt.udid {
					t.Errorf("got %s, %v; want %s", d.UDID, err, tt.udid)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %v, want one saying %q", err, tt.msg)
			}
		})
	}
	var nf *SimulatorNotFoundError
	if _, err := ResolveSimulator(nil, SimulatorQuery{Name: "x"}); !errors.As(err, &nf) || !strings.Contains(err.Error(), "simctl create") {
		t.Errorf("no devices at all: %v", err)
	}
	var amb *AmbiguousSimulatorError
	if _, err := ResolveSimulator(devs, SimulatorQuery{Name: "iPhone 16"}); !errors.As(err, &amb) || len(amb.Matches) != 2 {
		t.Errorf("ambiguous: %v", err)
	}
}

func TestParseSummaryFailed(t *testing.T) {
	s, err := ParseSummary(sample(t, "xcresult_summary_failed.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Result != ResultFailed || s.Total != 9 || s.Passed != 5 || s.Failed != 2 || s.Skipped != 1 || s.ExpectedFailures != 1 {
		t.Errorf("counts %+v", s)
	}
	if s.Status() != testreport.Failed {
		t.Errorf("Status = %s", s.Status())
	}
	wantFailures := []TestFailure{
		{TestName: "testParsesHeader()", Target: "CrashyTests", Text: `XCTAssertEqual failed: ("1") is not equal to ("2")`, Identifier: "CrashyTests/ParserTests/testParsesHeader()"},
		{TestName: "testDecodesBody()", Target: "CrashyTests", Text: "Crash: Crashy (4242) at Parser.decode(_:) + 120", Identifier: "18"},
	}
	if !reflect.DeepEqual(s.Failures, wantFailures) {
		t.Errorf("failures\n got %+v\nwant %+v", s.Failures, wantFailures)
	}
	if len(s.Devices) != 1 || s.Devices[0].DeviceName != "iPhone 15" || s.Devices[0].Platform != "iOS Simulator" ||
		s.Devices[0].Configuration != "Test Scheme Action" || s.Devices[0].Failed != 2 {
		t.Errorf("devices %+v", s.Devices)
	}
	if want := time.Date(2024, 10, 2, 10, 11, 30, 102e6, time.UTC); s.Start.Sub(want).Abs() > time.Millisecond {
		t.Errorf("Start = %v, want %v", s.Start, want)
	}
}

func TestSummaryStatus(t *testing.T) {
	tests := []struct {
		file string
		want testreport.Status
	}{
		{"xcresult_summary_passed.json", testreport.Passed},
		{"xcresult_summary_no_tests.json", testreport.NoTests},
	}
	for _, tt := range tests {
		s, err := ParseSummary(sample(t, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if s.Status() != tt.want {
			t.Errorf("%s: Status = %s, want %s", tt.file, s.Status(), tt.want)
		}
	}
	for _, tt := range []struct {
		s    TestSummary
		want testreport.Status
	}{
		{TestSummary{Result: ResultUnknown, Total: 4, Passed: 2}, testreport.Errored}, // the run did not finish
		{TestSummary{Result: ResultSkipped, Total: 3, Skipped: 3}, testreport.NoTests},
		{TestSummary{Result: ResultPassed, Total: 2, Passed: 1, ExpectedFailures: 1}, testreport.Passed},
		{TestSummary{Result: ResultFailed}, testreport.Failed},
	} {
		if got := tt.s.Status(); got != tt.want {
			t.Errorf("%+v: Status = %s, want %s", tt.s, got, tt.want)
		}
	}
	if _, err := ParseSummary(sample(t, "xcresult_legacy.json")); err == nil || !strings.Contains(err.Error(), "ParseLegacy") {
		t.Errorf("legacy document given to ParseSummary: %v", err)
	}
	bad := []string{`{"result": "Passed", "totalTestCount": "9"}`, `{"result": "Passed", "totalTestCount": 1, "startTime": 1e300}`}
	if _, err := ParseSummary([]byte(bad[0])); err == nil {
		t.Error("string count accepted")
	}
	if s, err := ParseSummary([]byte(bad[1])); err != nil || !s.Start.IsZero() {
		t.Errorf("absurd start time: %v, %v", s, err)
	}
}

func TestParseTestsCases(t *testing.T) {
	tree, err := ParseTests(sample(t, "xcresult_tests.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := tree.Cases()
	want := []testreport.Case{
		{Suite: "ParserTests", Name: "testParsesHeader()", Status: testreport.Failed, Duration: 120 * time.Millisecond,
			Message: `ParserTests.swift:42: XCTAssertEqual failed: ("1") is not equal to ("2")`, File: "ParserTests.swift", Line: 42},
		{Suite: "ParserTests", Name: "testDecodesBody()", Status: testreport.Failed, Duration: time.Second,
			Message: "Crash: Crashy (4242) at Parser.decode(_:) + 120"},
		{Suite: "ParserTests", Name: "testEmpty()", Status: testreport.Passed, Duration: 3 * time.Millisecond},
		{Suite: "ParserTests", Name: "testLegacy()", Status: testreport.Skipped},
		{Suite: "ParserTests", Name: "testKnownBug()", Status: testreport.Passed, Duration: 10 * time.Millisecond},
		{Suite: "Nested", Name: "roundTrip(_:)", Status: testreport.Passed, Duration: 2 * time.Millisecond},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cases\n got %+v\nwant %+v", got, want)
	}
}

func TestNodeDuration(t *testing.T) {
	secs := 2.5
	tests := []struct {
		n    TestNode
		want time.Duration
	}{
		{TestNode{Seconds: &secs, Duration: "9s"}, 2500 * time.Millisecond},
		{TestNode{Duration: "0,25s"}, 250 * time.Millisecond},
		{TestNode{Duration: "12ms"}, 12 * time.Millisecond},
		{TestNode{Duration: "2m 3s"}, 2 * time.Minute},
		{TestNode{Duration: "fast"}, 0},
		{TestNode{}, 0},
	}
	for _, tt := range tests {
		if got := nodeDuration(tt.n); got != tt.want {
			t.Errorf("nodeDuration(%q) = %v, want %v", tt.n.Duration, got, tt.want)
		}
	}
}

func TestTestTreeDepthIsBounded(t *testing.T) {
	n := TestNode{Type: NodeTestCase, Name: "deep"}
	for range 1000 {
		n = TestNode{Type: "Test Suite", Name: "s", Children: []TestNode{n}}
	}
	tree := &TestTree{Nodes: []TestNode{n}}
	if cases := tree.Cases(); len(cases) != 0 {
		t.Errorf("a case 1000 levels down was reached: %v", cases)
	}
}

func TestParseLegacy(t *testing.T) {
	s, err := ParseLegacy(sample(t, "xcresult_legacy.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Legacy || s.Result != ResultFailed || s.Total != 10 || s.Failed != 1 || s.Skipped != 2 || s.Passed != 7 {
		t.Errorf("counts %+v", s)
	}
	want := TestFailure{TestName: "ParserTests.testParsesHeader()", Target: "CrashyTests",
		Text: `XCTAssertEqual failed: ("1") is not equal to ("2")`, Location: "/Users/dev/Crashy/CrashyTests/ParserTests.swift:42"}
	if len(s.Failures) != 1 || s.Failures[0] != want {
		t.Errorf("failures %+v, want %+v", s.Failures, want)
	}
	if s.Title != "Testing project Crashy with scheme Crashy" || len(s.Devices) != 1 || s.Devices[0].OSVersion != "15.0" || s.Devices[0].Platform != "iOS Simulator" {
		t.Errorf("title/devices %q %+v", s.Title, s.Devices)
	}

	b, err := ParseLegacy(sample(t, "xcresult_legacy_build_error.json"))
	if err != nil {
		t.Fatal(err)
	}
	if b.Status() != testreport.Failed || len(b.Errors) != 1 || b.Errors[0] != "Cannot find 'decode' in scope" {
		t.Errorf("build error bundle: status %s, %+v", b.Status(), b)
	}

	for _, in := range []string{
		`{"_type": {"_name": "ActionTestPlanRunSummaries"}, "summaries": {}}`,
		`{"metrics": {"testsCount": {"_value": "ten"}}}`,
		`{"metrics": {"testsCount": {"_value": "-1"}}}`,
		`{"issues": {}}`,
	} {
		if _, err := ParseLegacy([]byte(in)); err == nil {
			t.Errorf("ParseLegacy(%s): no error", in)
		}
	}
}

func TestLocationPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"file:///a/B.swift#CharacterRangeLen=0&StartingLineNumber=9", "/a/B.swift:10"},
		{"file:///a/B%20C.swift", "/a/B C.swift"},
		{"file:///a/B.swift#StartingLineNumber=x", "/a/B.swift"},
		{"not a url %zz", "not a url %zz"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := locationPath(tt.in); got != tt.want {
			t.Errorf("locationPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestBoundedKeepsUTF8(t *testing.T) {
	s := strings.Repeat("é", maxMessage) // 2 bytes each
	got := bounded(s)
	if len(got) > maxMessage+len("…") || !strings.HasSuffix(got, "…") {
		t.Errorf("len %d", len(got))
	}
	if !utf8Valid(got) {
		t.Error("cut inside a rune")
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
