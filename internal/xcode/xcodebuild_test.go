package xcode

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const (
	ws   = "/src/Crashy/Crashy.xcworkspace"
	proj = "/src/Crashy/Crashy.xcodeproj"
	dd   = "/tmp/dd"
)

func TestDestinationSpec(t *testing.T) {
	tests := []struct {
		d       Destination
		want    string
		generic bool
	}{
		{Destination{}, "", false},
		{Destination{SimulatorID: "3B000000-0000-4000-8000-000000000180"}, "platform=iOS Simulator,id=3B000000-0000-4000-8000-000000000180", false},
		{Destination{SimulatorName: "iPhone 16", OS: "18.0"}, "platform=iOS Simulator,name=iPhone 16,OS=18.0", false},
		{Destination{SimulatorName: "iPhone 16"}, "platform=iOS Simulator,name=iPhone 16,OS=latest", false},
		{Destination{Platform: "watchos-simulator", SimulatorName: "Apple Watch Series 10 (46mm)"}, "platform=watchOS Simulator,name=Apple Watch Series 10 (46mm),OS=latest", false},
		{Destination{Platform: "tvOS Simulator", SimulatorID: "X"}, "platform=tvOS Simulator,id=X", false},
		{Destination{DeviceID: "00008110-001A2C3E0E80401E"}, "id=00008110-001A2C3E0E80401E", false},
		{Destination{Platform: "iOS", DeviceID: "00008110-001A2C3E0E80401E"}, "platform=iOS,id=00008110-001A2C3E0E80401E", false},
		{Destination{Platform: "macOS"}, "platform=macOS", false},
		{Destination{Platform: "MACOS", Arch: "arm64"}, "platform=macOS,arch=arm64", false},
		{Destination{Platform: "mac_catalyst"}, "platform=macOS,variant=Mac Catalyst", false},
		{Destination{Platform: "iOS"}, "generic/platform=iOS", true},
		{Destination{Platform: "iOS Simulator"}, "generic/platform=iOS Simulator", true},
		{Destination{Platform: "visionOS"}, "generic/platform=visionOS", true},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got, err := tt.d.Spec()
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Spec = %q, want %q", got, tt.want)
			}
			if tt.d.Generic() != tt.generic {
				t.Errorf("Generic = %v, want %v", tt.d.Generic(), tt.generic)
			}
		})
	}
}

func TestDestinationRefusals(t *testing.T) {
	tests := []struct {
		name string
		d    Destination
		msg  string
	}{
		{"id and name", Destination{SimulatorID: "X", SimulatorName: "iPhone 16"}, "one of"},
		{"simulator and device", Destination{SimulatorID: "X", DeviceID: "Y"}, "one of"},
		{"os without name", Destination{SimulatorID: "X", OS: "18.0"}, "os applies only"},
		{"arch off macOS", Destination{Platform: "iOS", Arch: "arm64"}, "arch applies only"},
		{"arch alone", Destination{Arch: "arm64"}, "arch applies only"},
		{"comma in name", Destination{SimulatorName: "iPhone 16,id=evil"}, "cannot carry"},
		{"equals in id", Destination{SimulatorID: "a=b"}, "cannot carry"},
		{"newline", Destination{SimulatorName: "a\nb"}, "cannot carry"},
		{"padded name", Destination{SimulatorName: " iPhone 16"}, "surrounding spaces"},
		{"unknown platform", Destination{Platform: "Android"}, "known platforms are macOS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.d.Spec()
			if !errors.Is(err, ErrDestination) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %v, want ErrDestination saying %q", err, tt.msg)
			}
		})
	}
}

func TestBuildCommand(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name   string
		action Action
		r      Request
		want   []string
		env    map[string]string
	}{
		{"build workspace, scheme's own configuration", ActionBuild,
			Request{Workspace: ws, Scheme: "Crashy", DerivedDataPath: dd},
			[]string{"xcodebuild", "-workspace", ws, "-scheme", "Crashy", "-derivedDataPath", dd, "build"}, nil},
		{"build project for a simulator", ActionBuild,
			Request{Project: proj + "/", Scheme: "Crashy", Configuration: "Release", DerivedDataPath: dd,
				Destination: Destination{SimulatorName: "iPhone 16", OS: "18.0"}, Args: []string{"CODE_SIGNING_ALLOWED=NO"}},
			[]string{"xcodebuild", "-project", proj, "-scheme", "Crashy", "-configuration", "Release",
				"-destination", "platform=iOS Simulator,name=iPhone 16,OS=18.0", "-derivedDataPath", dd, "CODE_SIGNING_ALLOWED=NO", "build"}, nil},
		{"test with selection", ActionTest,
			Request{Workspace: ws, Scheme: "Crashy", DerivedDataPath: dd, Destination: Destination{SimulatorID: "UDID"},
				ResultBundlePath: "/tmp/r.xcresult", TestPlan: "Smoke",
				OnlyTesting: []string{"CrashyTests/ParserTests", "CrashyTests/CodecSuite/Nested/roundTrip(_:)"},
				SkipTesting: []string{"CrashyUITests"}, ParallelTesting: &no,
				Env: map[string]string{"NSUnbufferedIO": "YES"}, TestEnv: map[string]string{"CRASHY_SEED": "7", "TEST_RUNNER_X": "1"}},
			[]string{"xcodebuild", "-workspace", ws, "-scheme", "Crashy", "-destination", "platform=iOS Simulator,id=UDID",
				"-derivedDataPath", dd, "-resultBundlePath", "/tmp/r.xcresult", "-testPlan", "Smoke",
				"-only-testing:CrashyTests/ParserTests", "-only-testing:CrashyTests/CodecSuite/Nested/roundTrip(_:)",
				"-skip-testing:CrashyUITests", "-parallel-testing-enabled", "NO", "test"},
			map[string]string{"NSUnbufferedIO": "YES", "TEST_RUNNER_CRASHY_SEED": "7", "TEST_RUNNER_X": "1"}},
		{"build-for-testing, parallel on", ActionBuildForTesting,
			Request{Workspace: ws, Scheme: "Crashy", DerivedDataPath: dd, ParallelTesting: &yes, Destination: Destination{Platform: "iOS Simulator"}},
			[]string{"xcodebuild", "-workspace", ws, "-scheme", "Crashy", "-destination", "generic/platform=iOS Simulator",
				"-derivedDataPath", dd, "-parallel-testing-enabled", "YES", "build-for-testing"}, nil},
		{"test-without-building on macOS", ActionTestWithoutBuilding,
			Request{Workspace: ws, Scheme: "Crashy", DerivedDataPath: dd, Destination: Destination{Platform: "macOS"}},
			[]string{"xcodebuild", "-workspace", ws, "-scheme", "Crashy", "-destination", "platform=macOS", "-derivedDataPath", dd, "test-without-building"}, nil},
		{"clean ignores the result bundle", ActionClean,
			Request{Workspace: ws, Scheme: "Crashy", DerivedDataPath: dd, ResultBundlePath: "/tmp/r.xcresult"},
			[]string{"xcodebuild", "-workspace", ws, "-scheme", "Crashy", "-derivedDataPath", dd, "clean"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := BuildCommand(tt.action, tt.r)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.Argv, tt.want) {
				t.Errorf("argv:\n got %q\nwant %q", c.Argv, tt.want)
			}
			if !reflect.DeepEqual(c.Env, tt.env) {
				t.Errorf("env = %v, want %v", c.Env, tt.env)
			}
		})
	}
}

func TestBuildCommandRefusals(t *testing.T) {
	base := Request{Workspace: ws, Scheme: "Crashy"}
	with := func(f func(*Request)) Request { r := base; f(&r); return r }
	tests := []struct {
		name   string
		action Action
		r      Request
		msg    string
	}{
		{"both containers", ActionBuild, with(func(r *Request) { r.Project = proj }), "not both"},
		{"no container", ActionBuild, Request{Scheme: "Crashy"}, "one is required"},
		{"workspace that is not one", ActionBuild, with(func(r *Request) { r.Workspace = "/src/Crashy" }), "not a .xcworkspace"},
		{"project that is a workspace", ActionBuild, Request{Project: ws, Scheme: "Crashy"}, "not a .xcodeproj"},
		{"no scheme", ActionBuild, with(func(r *Request) { r.Scheme = "" }), "scheme: required"},
		{"scheme read as option", ActionBuild, with(func(r *Request) { r.Scheme = "-quiet" }), "starts with '-'"},
		{"configuration read as option", ActionBuild, with(func(r *Request) { r.Configuration = "-x" }), "starts with '-'"},
		{"unknown action", "archive", base, "unknown action"},
		{"only-testing on build", ActionBuild, with(func(r *Request) { r.OnlyTesting = []string{"T"} }), "apply to test actions"},
		{"test env on clean", ActionClean, with(func(r *Request) { r.TestEnv = map[string]string{"A": "1"} }), "apply to test actions"},
		{"bad test identifier", ActionTest, with(func(r *Request) { r.OnlyTesting = []string{"-T"} }), "not a test identifier"},
		{"empty identifier part", ActionTest, with(func(r *Request) { r.SkipTesting = []string{"T//m"} }), "not a test identifier"},
		{"identifier with newline", ActionTest, with(func(r *Request) { r.SkipTesting = []string{"T/a\nb"} }), "not a test identifier"},
		{"generic destination for tests", ActionTest, with(func(r *Request) { r.Destination = Destination{Platform: "iOS"} }), "concrete destination"},
		{"bad destination", ActionBuild, with(func(r *Request) { r.Destination = Destination{SimulatorID: "a", DeviceID: "b"} }), "one of"},
		{"bad env", ActionTest, with(func(r *Request) { r.Env = map[string]string{"A=B": "1"} }), "invalid variable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := BuildCommand(tt.action, tt.r)
			if err == nil {
				t.Fatalf("no error; argv %q", c.Argv)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not say %q", err, tt.msg)
			}
		})
	}
}

func TestDefaultDerivedDataPath(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache) // os.UserCacheDir on Linux
	t.Setenv("HOME", cache)           // and on macOS, ~/Library/Caches

	c, err := BuildCommand(ActionBuild, Request{Workspace: ws, Scheme: "Crashy"})
	if err != nil {
		t.Fatal(err)
	}
	got := c.Argv[len(c.Argv)-2]
	if !strings.HasPrefix(got, cache) || !strings.Contains(got, filepath.Join("triage", "DerivedData", "Crashy-")) {
		t.Errorf("derived data %q, want under %s/.../triage/DerivedData/Crashy-<hash>", got, cache)
	}

	a := DerivedDataPathIn("/c", "/src/one/App.xcworkspace")
	b := DerivedDataPathIn("/c", "/src/two/App.xcworkspace")
	if a == b {
		t.Errorf("two checkouts share %s", a)
	}
	if a != DerivedDataPathIn("/c", "/src/one/App.xcworkspace/") {
		t.Error("a trailing slash changes the derived data path")
	}
	if want := "/c/triage/DerivedData/App-"; !strings.HasPrefix(a, want) || len(a) != len(want)+16 {
		t.Errorf("DerivedDataPathIn = %q, want %s<16 hex>", a, want)
	}
}

func TestShowBuildSettingsAndListCommands(t *testing.T) {
	c, err := ShowBuildSettingsCommand(Request{Workspace: ws, Scheme: "Crashy", Configuration: "Debug", DerivedDataPath: dd, Destination: Destination{SimulatorID: "U"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"xcodebuild", "-showBuildSettings", "-json", "-workspace", ws, "-scheme", "Crashy", "-configuration", "Debug",
		"-destination", "platform=iOS Simulator,id=U", "-derivedDataPath", dd}
	if !reflect.DeepEqual(c.Argv, want) {
		t.Errorf("argv:\n got %q\nwant %q", c.Argv, want)
	}
	if _, err := ShowBuildSettingsCommand(Request{Workspace: ws, Scheme: "Crashy", OnlyTesting: []string{"T"}}); err == nil {
		t.Error("ShowBuildSettingsCommand accepted a test selection")
	}

	l, err := ListCommand("", proj)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"xcodebuild", "-list", "-json", "-project", proj}; !reflect.DeepEqual(l.Argv, want) {
		t.Errorf("ListCommand = %q, want %q", l.Argv, want)
	}
	if _, err := ListCommand(ws, proj); err == nil {
		t.Error("ListCommand accepted a workspace and a project")
	}
}

func TestXCResultCommands(t *testing.T) {
	tests := []struct {
		f    func(string) (Command, error)
		want []string
	}{
		{SummaryCommand, []string{"xcrun", "xcresulttool", "get", "test-results", "summary", "--path", "/tmp/r.xcresult", "--compact"}},
		{TestsCommand, []string{"xcrun", "xcresulttool", "get", "test-results", "tests", "--path", "/tmp/r.xcresult", "--compact"}},
		{LegacyCommand, []string{"xcrun", "xcresulttool", "get", "--legacy", "--format", "json", "--path", "/tmp/r.xcresult"}},
	}
	for _, tt := range tests {
		c, err := tt.f("/tmp/r.xcresult")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(c.Argv, tt.want) {
			t.Errorf("argv %q, want %q", c.Argv, tt.want)
		}
		for _, bad := range []string{"", "--path"} {
			if _, err := tt.f(bad); err == nil {
				t.Errorf("%v accepted bundle %q", tt.want[3:5], bad)
			}
		}
	}
	if got := ListDevicesCommand().Argv; !reflect.DeepEqual(got, []string{"xcrun", "simctl", "list", "devices", "-j"}) {
		t.Errorf("ListDevicesCommand = %q", got)
	}
	if got := ListRuntimesCommand().Argv; !reflect.DeepEqual(got, []string{"xcrun", "simctl", "list", "runtimes", "-j"}) {
		t.Errorf("ListRuntimesCommand = %q", got)
	}
}

func TestAvailable(t *testing.T) {
	found := func(string) (string, error) { return "/usr/bin/xcodebuild", nil }
	missing := func(string) (string, error) { return "", errors.New("not found") }
	if err := available("darwin", "arm64", found); err != nil {
		t.Errorf("macOS with xcodebuild: %v", err)
	}
	err := available("darwin", "arm64", missing)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "xcode-select") {
		t.Errorf("macOS without xcodebuild: %v", err)
	}
	err = available("linux", "amd64", found)
	if !errors.Is(err, ErrUnavailable) || err.Error() != "requires macOS with Xcode (this is linux/amd64)" {
		t.Errorf("linux: %v", err)
	}
	// And the real thing on this machine.
	if err := Available(); (err == nil) != isMacWithXcode() {
		t.Errorf("Available() = %v", err)
	}
}
