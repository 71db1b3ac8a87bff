package xcode

import (
	"context"
	"fmt"
	"time"
)

// Time limits of the simulator commands a launch waits on.
const (
	BootTimeout    = 3 * time.Minute
	InstallTimeout = 5 * time.Minute
)

// Label names a simulator in verdicts: "iPhone 16 (iOS 18.0, UDID)", or
// its UDID when its name is not known.
func (d Device) Label() string {
	if d.Name == "" {
		return d.UDID
	}
	return fmt.Sprintf("%s (%s, %s)", d.Name, d.RuntimeName(), d.UDID)
}

// LaunchRequest is an installed app to launch on a simulator and watch.
type LaunchRequest struct {
	Device   Device
	BundleID string
	Args     []string
	Env      map[string]string
	// Process is the app's process name, which its crash reports carry.
	Process string
	// Watch is how long the app is watched for a crash after it launched.
	Watch time.Duration
	// ReportDirs are where crash reports are looked for (see Correlate).
	ReportDirs []string
	// Notify, when set, is told what the launch is doing (progress).
	Notify func(string)
}

// LaunchOutcome is how a launch went.
type LaunchOutcome struct {
	Simulator    string // its UDID
	BundleID     string
	Status       string // launched, crashed or failed
	Line         string // the verdict line
	Pid          int
	CrashReports []CrashReport // written since the launch by the app or the simulator
}

// Launch launches the app and watches it for req.Watch: a crash report the
// app writes in that time makes the outcome a crash. Watching for a few
// seconds is the contract, not a synchronisation guess: a crash at
// start-up is reported as such.
func Launch(ctx context.Context, req LaunchRequest) LaunchOutcome {
	o := LaunchOutcome{Simulator: req.Device.UDID, BundleID: req.BundleID}
	start := time.Now()
	apps := []string{req.Process}
	stdout, err := Run(ctx, LaunchCommand(req.Device.UDID, req.BundleID, req.Args, req.Env), 0)
	if err != nil {
		o.Status = "failed"
		o.Line = fmt.Sprintf("LAUNCH FAILED: %s on %s: %v", req.BundleID, req.Device.Label(), err)
		o.CrashReports = Correlate(ctx, req.ReportDirs, start, apps)
		return o
	}
	o.Pid, _ = ParseLaunch(stdout)
	notify(req.Notify, fmt.Sprintf("launched %s (pid %d); watching for %s", req.BundleID, o.Pid, req.Watch))
	o.CrashReports = watch(ctx, req.Watch, req.ReportDirs, start, apps)
	for _, r := range o.CrashReports {
		if r.Role == "app" {
			o.Status = "crashed"
			o.Line = fmt.Sprintf("CRASHED: %s %s within %s of launch (crash report)", r.Process, r.Exception, req.Watch)
			return o
		}
	}
	o.Status = "launched"
	o.Line = fmt.Sprintf("LAUNCHED %s (pid %d) on %s; no crash within %s", req.BundleID, o.Pid, req.Device.Label(), req.Watch)
	return o
}

// watch waits up to d (or until ctx ends), then returns the crash reports
// written in dirs since start by apps (or the simulator).
func watch(ctx context.Context, d time.Duration, dirs []string, start time.Time, apps []string) []CrashReport {
	if d > 0 {
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	return Correlate(ctx, dirs, start, apps)
}

func notify(f func(string), msg string) {
	if f != nil {
		f(msg)
	}
}
