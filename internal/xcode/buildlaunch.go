// Build and launch: the one pipeline behind sim_build_run, device_build_run
// and macos_build_run. A Launcher says what differs by platform (where
// xcodebuild builds for, what readies the app, how it is launched and
// watched); the stages, their failures and the verdict are BuildAndLaunchOn's.

package xcode

import (
	"context"
	"path/filepath"
)

// Stages of a build and launch, in order; a platform skips those it does
// not need (a Mac neither boots nor installs).
const (
	StageBuild   = "build"
	StageLocate  = "locate"
	StageBoot    = "boot"
	StageInstall = "install"
	StageLaunch  = "launch"
)

// Launcher is one platform's part of a build and launch: the simulator's
// (LaunchRequest, through simctl), a device's (DeviceLaunchRequest, through
// devicectl) and this Mac's (MacLaunchRequest, through open).
type Launcher interface {
	// Destination is what xcodebuild builds for.
	Destination() Destination
	// Ready is what readies the app built for its launch, in order.
	Ready(app Product) []ReadyStep
	// LaunchApp launches the app built and watches it, telling notify
	// what it does; the verdict of a build whose app launched is its
	// line's, "BUILT AND " before it.
	LaunchApp(ctx context.Context, app Product, notify func(string)) LaunchOutcome
}

// ReadyStep is one step that readies an app for its launch: booting the
// simulator, installing the app.
type ReadyStep struct {
	Stage string // StageBoot or StageInstall
	Note  string // what the step is doing, for progress
	// Fails is how the verdict names its failure: "BUILT, but " + Fails.
	Fails string
	Run   func(ctx context.Context) error
}

// BuildAndLaunchOutcome is how far a build and launch got, and how it went.
type BuildAndLaunchOutcome struct {
	Stage  string // the last stage reached
	Status string // the build's status, then launched, exited (a device's app), crashed or failed
	Line   string // the verdict line
	Build  *BuildOutcome
	App    *Product       // the app built, once located
	Launch *LaunchOutcome // once launched
}

// BuildAndLaunchRequest is a scheme to build for a simulator, and its app
// to install and launch there (BuildAndLaunch).
type BuildAndLaunchRequest struct {
	// Build is the build; its action is ActionBuild, its destination the
	// simulator.
	Build BuildRequest
	// Target is the application target, when the scheme builds several.
	Target string
	// Launch is the launch once installed: its Device is the simulator;
	// its BundleID and Process are the app's, its Notify the pipeline's.
	Launch LaunchRequest
}

// BuildAndLaunch builds the scheme for a simulator, boots it, installs the
// app and launches it: BuildAndLaunchOn with the simulator's launcher.
func BuildAndLaunch(ctx context.Context, req BuildAndLaunchRequest) (*BuildAndLaunchOutcome, error) {
	return BuildAndLaunchOn(ctx, req.Build, req.Target, req.Launch, req.Launch.Notify)
}

// BuildAndLaunchOn builds the scheme for l's destination, finds the app it
// built (of target, when the scheme builds several), readies it and
// launches it, telling notify what it does. Each stage that fails ends it
// with a failed outcome naming the stage; the error is non-nil only when
// the build could not be run at all (see Build).
func BuildAndLaunchOn(ctx context.Context, b BuildRequest, target string, l Launcher, notify func(string)) (*BuildAndLaunchOutcome, error) {
	b.Action, b.Request.Destination = ActionBuild, l.Destination()
	built, err := Build(ctx, b)
	if err != nil {
		return nil, err
	}
	o := &BuildAndLaunchOutcome{Stage: StageBuild, Status: string(built.Status), Line: built.Line, Build: built}
	if !built.Status.OK() {
		return o, nil
	}
	if !o.ready(ctx, b.Request, target, l, notify) {
		return o, nil
	}
	o.Stage = StageLaunch
	launched := l.LaunchApp(ctx, *o.App, notify)
	o.Launch, o.Status, o.Line = &launched, launched.Status, launched.Line
	if launched.Status == "launched" {
		o.Line = "BUILT AND " + launched.Line
	}
	return o, nil
}

// ready locates the app built and runs l's steps for it, reporting
// whether all went well; the first that fails makes the outcome failed.
func (o *BuildAndLaunchOutcome) ready(ctx context.Context, r Request, target string, l Launcher, note func(string)) bool {
	fail := func(why string, err error) bool {
		o.Status, o.Line = "failed", "BUILT, but "+why+": "+err.Error()
		return false
	}
	o.Stage = StageLocate
	ts, err := BuildSettings(ctx, r)
	if err == nil {
		var app Product
		if app, err = App(ts, target); err == nil {
			o.App = &app
		}
	}
	if err != nil {
		return fail("the app was not found", err)
	}
	for _, s := range l.Ready(*o.App) {
		o.Stage = s.Stage
		if s.Note != "" {
			notify(note, s.Note)
		}
		if err := s.Run(ctx); err != nil {
			return fail(s.Fails, err)
		}
	}
	return true
}

// AppProcess is the process name of an app: its executable's, else the
// last component of its bundle id.
func AppProcess(app Product) string {
	if app.Executable != "" {
		return filepath.Base(app.Executable)
	}
	return ProcessName(app.BundleID)
}

// The simulator's launcher: boot, install with simctl, launch (Launch).

// Destination is the simulator.
func (r LaunchRequest) Destination() Destination { return Destination{SimulatorID: r.Device.UDID} }

// Ready boots the simulator (waiting until it is) and installs the app.
func (r LaunchRequest) Ready(app Product) []ReadyStep {
	udid := r.Device.UDID
	return []ReadyStep{
		{Stage: StageBoot, Note: "booting " + udid, Fails: "the simulator did not boot", Run: func(ctx context.Context) error {
			_, err := Run(ctx, BootStatusCommand(udid), BootTimeout)
			return err
		}},
		{Stage: StageInstall, Fails: "installing failed", Run: func(ctx context.Context) error {
			_, err := Run(ctx, InstallCommand(udid, app.Path), InstallTimeout)
			return err
		}},
	}
}

// LaunchApp launches the app installed (Launch).
func (r LaunchRequest) LaunchApp(ctx context.Context, app Product, notify func(string)) LaunchOutcome {
	r.BundleID, r.Process, r.Notify = app.BundleID, AppProcess(app), notify
	return Launch(ctx, r)
}

// A device's launcher: install and launch with devicectl (LaunchOnDevice).

// Destination is the device, with its platform when xcodebuild spells it
// (the id alone is enough otherwise).
func (r DeviceLaunchRequest) Destination() Destination {
	platform := r.Device.Platform
	if _, err := canonicalPlatform(platform); err != nil {
		platform = ""
	}
	return Destination{Platform: platform, DeviceID: r.Device.ID()}
}

// Ready installs the app on the device.
func (r DeviceLaunchRequest) Ready(app Product) []ReadyStep {
	return []ReadyStep{{Stage: StageInstall, Note: "installing " + app.Path + " on " + r.Device.Label(), Fails: "installing failed",
		Run: func(ctx context.Context) error {
			_, err := InstallOnDevice(ctx, r.Device, app.Path)
			return err
		}}}
}

// LaunchApp launches the app installed (LaunchOnDevice).
func (r DeviceLaunchRequest) LaunchApp(ctx context.Context, app Product, notify func(string)) LaunchOutcome {
	r.BundleID, r.Process, r.Notify = app.BundleID, AppProcess(app), notify
	return LaunchOnDevice(ctx, r)
}

// This Mac's launcher: nothing to ready; the app is launched by its path
// (LaunchMac).

// Destination is this Mac.
func (r MacLaunchRequest) Destination() Destination { return Destination{Platform: "macOS"} }

// Ready is nothing: an app built for this Mac launches where it was built.
func (r MacLaunchRequest) Ready(Product) []ReadyStep { return nil }

// LaunchApp launches the app by its path (LaunchMac).
func (r MacLaunchRequest) LaunchApp(ctx context.Context, app Product, notify func(string)) LaunchOutcome {
	r.App, r.BundleID, r.Process, r.Notify = app.Path, app.BundleID, AppProcess(app), notify
	return LaunchMac(ctx, r)
}
