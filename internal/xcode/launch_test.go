package xcode

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/fakexcode"
)

// TestBuildAndLaunchStages: each stage that fails ends the pipeline there,
// with its own verdict; the raw log of the build reaches the caller's
// writer whatever happens after it.
func TestBuildAndLaunchStages(t *testing.T) {
	settings, err := filepath.Abs(filepath.Join("testdata", "build_settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	const udid = "5A0C1B6E-0000-4000-8000-000000000001"
	dev := Device{UDID: udid, Name: "iPhone 16", OSName: "iOS", OSVersion: "18.0"}
	showSettings := fakexcode.Rule{Tool: "xcodebuild", Match: []string{"-showBuildSettings"}, StdoutFile: settings}
	build := fakexcode.Rule{Tool: "xcodebuild", Match: []string{"build"}, Stdout: "** BUILD SUCCEEDED **\n"}
	boot := fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "bootstatus", udid}}
	install := fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "install", udid}}
	launch := fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "launch"}, Stdout: "dev.triage.Crashy: 99\n"}
	failing := func(r fakexcode.Rule) fakexcode.Rule {
		r.StdoutFile, r.Stdout, r.Stderr, r.Exit = "", "", "simulated failure", 1
		return r
	}
	tests := []struct {
		name          string
		rules         []fakexcode.Rule
		stage, status string
		line          string // verdict prefix
	}{
		{"launched", []fakexcode.Rule{showSettings, build, boot, install, launch}, StageLaunch, "launched",
			"BUILT AND LAUNCHED dev.triage.Crashy (pid 99) on iPhone 16 (iOS 18.0, " + udid + "); no crash within 0s"},
		{"build failed", []fakexcode.Rule{showSettings, failing(build)}, StageBuild, "silent_failure", "BUILD FAILED (exit 1"},
		{"no app", []fakexcode.Rule{failing(showSettings), build}, StageLocate, "failed", "BUILT, but the app was not found: "},
		{"no boot", []fakexcode.Rule{showSettings, build, failing(boot)}, StageBoot, "failed", "BUILT, but the simulator did not boot: "},
		{"no install", []fakexcode.Rule{showSettings, build, boot, failing(install)}, StageInstall, "failed", "BUILT, but installing failed: "},
		{"no launch", []fakexcode.Rule{showSettings, build, boot, install, failing(launch)}, StageLaunch, "failed", "LAUNCH FAILED: dev.triage.Crashy on iPhone 16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fakexcode.Install(t, fakexcode.Scenario{Rules: tt.rules})
			proj := filepath.Join(t.TempDir(), "Crashy.xcodeproj")
			if err := os.Mkdir(proj, 0o755); err != nil {
				t.Fatal(err)
			}
			var raw bytes.Buffer
			var notes []string
			o, err := BuildAndLaunch(context.Background(), BuildAndLaunchRequest{
				Build:  BuildRequest{Raw: &raw, Request: Request{Project: proj, Scheme: "Crashy", Destination: Destination{SimulatorID: udid}}},
				Launch: LaunchRequest{Device: dev, Notify: func(msg string) { notes = append(notes, msg) }},
			})
			if err != nil {
				t.Fatal(err)
			}
			if o.Stage != tt.stage || o.Status != tt.status || !strings.HasPrefix(o.Line, tt.line) {
				t.Errorf("stage %q status %q line %q, want %q %q %q…", o.Stage, o.Status, o.Line, tt.stage, tt.status, tt.line)
			}
			if o.Build == nil || !strings.Contains(raw.String(), "xcodebuild") {
				t.Errorf("build outcome %v, raw log %q", o.Build, raw.String())
			}
			booted := o.Stage == StageBoot || o.Stage == StageInstall || o.Stage == StageLaunch
			if (o.Stage == StageLaunch) != (o.Launch != nil) || booted != (len(notes) > 0 && notes[0] == "booting "+udid) {
				t.Errorf("stage %s: launch %+v, notes %q", o.Stage, o.Launch, notes)
			}
			if o.Launch != nil && (o.Launch.BundleID != "dev.triage.Crashy" || o.Launch.Simulator != udid) {
				t.Errorf("launch %+v", o.Launch)
			}
		})
	}
}
