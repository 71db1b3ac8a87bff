// Apps on a physical device: install, launch and watch, stop, and the
// crash reports the device wrote for them, copied off its crash logs domain
// and summarised by the same parser as a simulator's or this Mac's.

package xcode

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// InstallOnDevice installs an .app bundle on the device and returns the
// bundle id devicectl reports for it.
func InstallOnDevice(ctx context.Context, d PhysicalDevice, app string) (string, error) {
	raw, err := devicectl(ctx, []string{"device", "install", "app", "--device", d.ID(), app}, InstallTimeout)
	if err != nil {
		return "", err
	}
	var r struct {
		Installed []struct {
			BundleID string `json:"bundleID"`
		} `json:"installedApplications"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || len(r.Installed) == 0 {
		return "", fmt.Errorf("devicectl device install app: its answer names no installed application")
	}
	return r.Installed[0].BundleID, nil
}

// DeviceLaunchRequest is an installed app to launch on a device and watch.
type DeviceLaunchRequest struct {
	Device   PhysicalDevice
	BundleID string
	Args     []string
	Env      map[string]string
	// Process is the app's process name, which its crash reports carry.
	Process string
	// Watch is how long the app is watched before its crash reports are
	// fetched; with Console, how long its console output is captured.
	Watch time.Duration
	// Console, when set, receives the app's stdout and stderr
	// (devicectl's --console) for Watch.
	Console io.Writer
	// ReportDir is where crash reports copied off the device are kept.
	ReportDir string
	Notify    func(string)
}

// LaunchOnDevice launches the app, watches it for req.Watch and fetches
// the crash reports the device wrote for it since: one makes the outcome a
// crash. A launch devicectl refuses is failed, with its reason (an app not
// installed says so).
func LaunchOnDevice(ctx context.Context, req DeviceLaunchRequest) LaunchOutcome {
	o := LaunchOutcome{Simulator: req.Device.ID(), BundleID: req.BundleID}
	start := time.Now()
	var exited bool
	var err error
	if req.Console != nil {
		exited, err = launchConsole(ctx, req)
	} else {
		o.Pid, err = launchDetached(ctx, req)
	}
	if err != nil {
		o.Status = "failed"
		o.Line = fmt.Sprintf("LAUNCH FAILED: %s on %s: %s", req.BundleID, req.Device.Label(), launchReason(err, req))
		return o
	}
	if req.Console == nil {
		notify(req.Notify, fmt.Sprintf("launched %s (pid %d); watching for %s", req.BundleID, o.Pid, req.Watch))
		sleepCtx(ctx, req.Watch)
	}
	reports, ferr := DeviceCrashReports(ctx, req.Device, req.ReportDir, start, []string{req.Process})
	o.CrashReports = reports
	if len(reports) > 0 {
		r := reports[0]
		o.Status = "crashed"
		o.Line = fmt.Sprintf("CRASHED: %s %s within %s of launch (crash report from the device)", r.Process, r.Exception, req.Watch)
		return o
	}
	o.Status = "launched"
	o.Line = fmt.Sprintf("LAUNCHED %s (pid %d) on %s; no crash report within %s", req.BundleID, o.Pid, req.Device.Label(), req.Watch)
	if exited {
		o.Status = "exited"
		o.Line = fmt.Sprintf("EXITED: %s ended within %s of launch on %s, with no crash report", req.BundleID, req.Watch, req.Device.Label())
	}
	if ferr != nil {
		o.Line += fmt.Sprintf(" (its crash reports could not be fetched: %v)", ferr)
	}
	return o
}

func launchArgs(req DeviceLaunchRequest, console bool) ([]string, error) {
	args := []string{"device", "process", "launch", "--device", req.Device.ID()}
	if console {
		args = append(args, "--console")
	}
	if len(req.Env) > 0 {
		env, err := json.Marshal(req.Env)
		if err != nil {
			return nil, err
		}
		args = append(args, "--environment-variables", string(env))
	}
	return append(append(args, req.BundleID), req.Args...), nil
}

func launchDetached(ctx context.Context, req DeviceLaunchRequest) (int, error) {
	args, err := launchArgs(req, false)
	if err != nil {
		return 0, err
	}
	raw, err := devicectl(ctx, args, 0)
	if err != nil {
		return 0, err
	}
	var r struct {
		Process struct {
			Pid int `json:"processIdentifier"`
		} `json:"process"`
	}
	_ = json.Unmarshal(raw, &r) // a launch without a pid is still a launch
	return r.Process.Pid, nil
}

// launchConsole runs the launch with --console for req.Watch, its output
// into req.Console, and reports whether the app ended before that (devicectl
// waits for the app to terminate). The JSON answer is not asked for: a
// console launch has none until the app ends.
func launchConsole(ctx context.Context, req DeviceLaunchRequest) (bool, error) {
	args, err := launchArgs(req, true)
	if err != nil {
		return false, err
	}
	notify(req.Notify, fmt.Sprintf("launched %s with its console; capturing for %s", req.BundleID, req.Watch))
	// The output's end is kept too: a refused launch says why there.
	tail := &limitedBuffer{max: 16 << 10, keepTail: true}
	res, err := spawn.Run(ctx, spawn.Spec{Argv: append([]string{"xcrun", "devicectl"}, args...), Timeout: req.Watch, Combined: io.MultiWriter(req.Console, tail)})
	if err != nil {
		return false, err
	}
	if res.TimedOut {
		return false, nil
	}
	if !res.Success() {
		msg := firstError(tail.String())
		if msg == "" {
			msg = "the console launch ended: " + res.String()
		}
		return false, &DevicectlError{Command: "device process launch", Message: msg, Detail: tail.String()}
	}
	return true, nil
}

// launchReason is a refused launch's reason, a missing app or a locked
// device named as such.
func launchReason(err error, req DeviceLaunchRequest) string {
	de, ok := err.(*DevicectlError)
	switch {
	case ok && de.AppNotInstalled():
		return fmt.Sprintf("%s is not installed on the device (install it first: device_install_app): %v", req.BundleID, err)
	case ok && de.DeviceLocked():
		return fmt.Sprintf("device %s is locked: unlock it and retry (SpringBoard refused to open the app: FBSOpenApplicationErrorDomain error 7, Locked)", req.Device.Label())
	}
	return err.Error()
}

func sleepCtx(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// StopOnDevice terminates the process pid on the device.
func StopOnDevice(ctx context.Context, d PhysicalDevice, pid int) error {
	_, err := devicectl(ctx, []string{"device", "process", "terminate", "--device", d.ID(), "--pid", strconv.Itoa(pid)}, 0)
	return err
}

// DeviceCrashReports copies the device's crash logs domain into dir (a
// directory of its own per device under it, replacing the last copy) and returns the reports of
// apps written since since, newest first. A report's own time decides,
// not the copy's: the copy is new, the report may be old. Reports whose
// time cannot be read are kept.
func DeviceCrashReports(ctx context.Context, d PhysicalDevice, dir string, since time.Time, apps []string) ([]CrashReport, error) {
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir()
		}
		dir = filepath.Join(base, "triage", "device-reports")
	}
	// The previous copy goes: what is still on the device comes back, and
	// the directory does not grow with every launch.
	dest := filepath.Join(dir, d.ID())
	if err := os.RemoveAll(dest); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dest, 0o700); err != nil {
		return nil, err
	}
	args := []string{"device", "copy", "from", "--device", d.ID(), "--domain-type", "systemCrashLogs", "--source", ".", "--destination", dest}
	if _, err := devicectl(ctx, args, 0); err != nil {
		return nil, err
	}
	return reportsIn(dest, since, apps), nil
}

// reportsIn reads the crash reports in dir written by apps since since.
func reportsIn(dir string, since time.Time, apps []string) []CrashReport {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []CrashReport
	for i := len(entries) - 1; i >= 0 && len(out) < maxReports; i-- {
		path := filepath.Join(dir, entries[i].Name())
		if entries[i].IsDir() || !isReportFile(path) {
			continue
		}
		for _, rep := range readReports(path) {
			if roleOf(rep.Process, apps) != "app" || !reportSince(rep.Time, since) {
				continue
			}
			out = append(out, CrashReport{
				Path: path, Process: rep.Process, Pid: rep.Pid,
				Exception: exception(rep), Summary: strings.TrimSpace(rep.Summary()), Role: "app",
			})
			break
		}
	}
	return out
}

// reportSince reports whether a report's time ("2022-08-05 13:24:19.00
// +0400") is at or after since, with a minute's slack for the device's
// clock; a time that cannot be read counts.
func reportSince(when string, since time.Time) bool {
	t, err := time.Parse("2006-01-02 15:04:05 -0700", when)
	return err != nil || !t.Before(since.Add(-time.Minute))
}
