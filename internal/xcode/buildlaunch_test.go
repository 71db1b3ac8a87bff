package xcode

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/fakexcode"
)

// TestBuildAndLaunchOnEachPlatform: the one pipeline with a device's and
// this Mac's launcher builds for the launcher's destination, runs only the
// steps that platform needs (a device installs, a Mac does not), tells
// progress what they do, hands the launch the app built, and ends at the
// stage that failed with that stage's verdict; a launch's caveat (crash
// reports that could not be fetched) stays in the verdict. (The
// simulator's stages are TestBuildAndLaunchStages'.)
func TestBuildAndLaunchOnEachPlatform(t *testing.T) {
	settings, err := filepath.Abs(filepath.Join("testdata", "build_settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	phone := PhysicalDevice{UDID: "00008120-0014485601E3C01E", Name: "iPhone", Platform: "iOS", OSVersion: "18.4.1"}
	watch := PhysicalDevice{UDID: "00008301-0000000000000001", Name: "Watch", Platform: "unknownOS"}
	showSettings := fakexcode.Rule{Tool: "xcodebuild", Match: []string{"-showBuildSettings"}, StdoutFile: settings}
	build := fakexcode.Rule{Tool: "xcodebuild", Match: []string{"build"}, Stdout: "** BUILD SUCCEEDED **\n"}
	install := answer(t, "install_app.json", "device", "install", "app")
	launch := answer(t, "launch.json", "device", "process", "launch")
	copyFrom := fakexcode.Rule{Tool: "xcrun", Match: []string{"devicectl", "device", "copy", "from"}}
	const app = "/Users/dev/Library/Caches/triage/DerivedData/Crashy-0a1b2c3d4e5f6071/Build/Products/Debug-iphonesimulator/Crashy.app"
	open := fakexcode.Rule{Tool: "open", Match: []string{"-n", "-a"}}
	tests := []struct {
		name          string
		launcher      Launcher
		rules         []fakexcode.Rule
		destination   string
		stage, status string
		line          string // verdict prefix
		notes         []string
	}{
		{"device launched", DeviceLaunchRequest{Device: phone, ReportDir: t.TempDir()}, []fakexcode.Rule{showSettings, build, install, launch, copyFrom},
			"platform=iOS,id=" + phone.UDID, StageLaunch, "launched",
			"BUILT AND LAUNCHED dev.triage.Crashy (pid 1234) on iPhone (iOS 18.4.1, " + phone.UDID + "); no crash report within 0s",
			[]string{"installing " + app + " on iPhone (iOS 18.4.1, " + phone.UDID + ")",
				"launched dev.triage.Crashy (pid 1234); watching for 0s"}},
		{"device reports not fetched", DeviceLaunchRequest{Device: phone, ReportDir: t.TempDir()},
			[]fakexcode.Rule{showSettings, build, install, launch, {Tool: "xcrun", Match: []string{"devicectl", "device", "copy", "from"}, Stderr: "ERROR: no tunnel", Exit: 1}},
			"platform=iOS,id=" + phone.UDID, StageLaunch, "launched",
			"BUILT AND LAUNCHED dev.triage.Crashy (pid 1234) on iPhone (iOS 18.4.1, " + phone.UDID + "); no crash report within 0s (its crash reports could not be fetched: ",
			[]string{"installing " + app + " on iPhone (iOS 18.4.1, " + phone.UDID + ")", "launched dev.triage.Crashy (pid 1234); watching for 0s"}},
		{"device not installed", DeviceLaunchRequest{Device: watch, ReportDir: t.TempDir()},
			[]fakexcode.Rule{showSettings, build, failing(t, "install_app_failed", "device", "install", "app")},
			"id=" + watch.UDID, StageInstall, "failed", "BUILT, but installing failed: devicectl device install app: ",
			[]string{"installing " + app + " on Watch (unknownOS, " + watch.UDID + ")"}},
		{"mac launched", MacLaunchRequest{}, []fakexcode.Rule{showSettings, build, open},
			"platform=macOS", StageLaunch, "launched",
			"BUILT AND LAUNCHED " + app + " (process Crashy); no crash within 0s",
			[]string{"launched " + app + "; watching for 0s"}},
		{"mac not opened", MacLaunchRequest{}, []fakexcode.Rule{showSettings, build, {Tool: "open", Exit: 1}},
			"platform=macOS", StageLaunch, "failed", "LAUNCH FAILED: " + app + ": ", nil},
		{"mac app not found", MacLaunchRequest{}, []fakexcode.Rule{{Tool: "xcodebuild", Match: []string{"-showBuildSettings"}, Exit: 1}, build},
			"platform=macOS", StageLocate, "failed", "BUILT, but the app was not found: ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fakexcode.Install(t, fakexcode.Scenario{Rules: tt.rules, Tools: []string{"open"}})
			proj := filepath.Join(t.TempDir(), "Crashy.xcodeproj")
			if err := os.Mkdir(proj, 0o755); err != nil {
				t.Fatal(err)
			}
			var notes []string
			o, err := BuildAndLaunchOn(context.Background(), BuildRequest{Request: Request{Project: proj, Scheme: "Crashy"}}, "", tt.launcher,
				func(msg string) { notes = append(notes, msg) })
			if err != nil {
				t.Fatal(err)
			}
			if o.Stage != tt.stage || o.Status != tt.status || !strings.HasPrefix(o.Line, tt.line) {
				t.Errorf("stage %q status %q line %q, want %q %q %q…", o.Stage, o.Status, o.Line, tt.stage, tt.status, tt.line)
			}
			if c, ok := f.Find(t, "xcodebuild", "build"); !ok || !slices.Contains(c.Argv, tt.destination) {
				t.Errorf("xcodebuild %q, want -destination %q", c.Argv, tt.destination)
			}
			if !slices.Equal(notes, tt.notes) {
				t.Errorf("notes %q, want %q", notes, tt.notes)
			}
			if (o.Stage == StageLaunch) != (o.Launch != nil) || o.Stage != StageLocate && (o.App == nil || o.App.BundleID != "dev.triage.Crashy") {
				t.Errorf("stage %s: app %+v, launch %+v", o.Stage, o.App, o.Launch)
			}
		})
	}
}
