package device

import (
	"context"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/render"
	"github.com/triage-dev/triage/internal/workflow/wire"
	"github.com/triage-dev/triage/internal/xcode"
)

// maxWatch is the most a launch is watched (its console captured).
const maxWatch = 10 * time.Minute

type launchParams struct {
	apple.DeviceArgs
	apple.AppLaunchArgs
	WatchS  duration.Seconds `json:"watch_s,omitempty" jsonschema:"seconds to watch (and capture the console) before fetching crash reports (default 3, max 600)"`
	Console bool             `json:"console,omitempty" jsonschema:"capture the app's stdout and stderr into the output store"`
}

// LaunchOutput is the result of device_launch_app.
type LaunchOutput struct {
	Verdict      string                `json:"verdict" jsonschema:"the verdict line"`
	Status       string                `json:"status" jsonschema:"launched, exited, crashed or failed"`
	Device       string                `json:"device" jsonschema:"the device's UDID"`
	BundleID     string                `json:"bundle_id" jsonschema:"the app launched"`
	Pid          int                   `json:"pid,omitempty" jsonschema:"the app's process id on the device"`
	CrashReports []wire.AppCrashReport `json:"crash_reports,omitempty" jsonschema:"the app's crash reports the device wrote since the launch"`
	Console      *catalog.Captured     `json:"console,omitempty" jsonschema:"the app's console output, when captured"`
}

func (h *handler) launch(ctx context.Context, c *catalog.Call, in launchParams) (catalog.Result[LaunchOutput], error) {
	var zero catalog.Result[LaunchOutput]
	req, err := in.request(ctx)
	if err != nil {
		return zero, err
	}
	req.ReportDir = h.reportDir()
	req.Notify = func(msg string) { c.Progress(ctx, 0, 0, msg) }
	if !in.Console {
		return launchResult(newLaunchOutput(xcode.LaunchOnDevice(ctx, req)), ""), nil
	}
	sink, err := apple.LogSink(ctx, c, h.svc)
	if err != nil {
		return zero, err
	}
	o, cp, err := xcode.LaunchOnDeviceConsole(ctx, sink, req)
	if err != nil {
		return zero, err
	}
	out := newLaunchOutput(o)
	captured := catalog.NewCaptured(cp.Kept.ID, cp.Kept.Lines, cp.Kept.Truncated(int64(cp.Kept.Lines)))
	out.Console = &captured
	answer := launchResult(out, cp.Kept.Excerpt.Text)
	cr := cp.FinishWith(ctx, store.Final{Status: xcode.StoreStatus(o.Status), VerdictLine: o.Line}, answer.Output)
	return render.StoreFailure(answer, cr), nil
}

// request validates the arguments and resolves the device.
func (in launchParams) request(ctx context.Context) (xcode.DeviceLaunchRequest, error) {
	watch, process, err := in.Check(in.WatchS, maxWatch)
	if err != nil {
		return xcode.DeviceLaunchRequest{}, err
	}
	d, err := in.Resolve(ctx)
	return xcode.DeviceLaunchRequest{Device: d, BundleID: in.BundleID, Args: in.Args, Env: in.Env, Process: process, Watch: watch}, err
}

func newLaunchOutput(o xcode.LaunchOutcome) LaunchOutput {
	return LaunchOutput{Verdict: o.Line, Status: o.Status, Device: o.Simulator, BundleID: o.BundleID, Pid: o.Pid, CrashReports: wire.AppCrashReportsOf(o.CrashReports)}
}

func launchResult(out LaunchOutput, console string) catalog.Result[LaunchOutput] {
	var more strings.Builder
	if out.Console != nil {
		catalog.WriteExcerpt(&more, *out.Console, console)
	}
	next := ""
	if out.Pid > 0 {
		next = "stop: " + catalog.NextCall("device_stop_app", map[string]any{"device_id": out.Device, "pid": out.Pid})
	}
	return apple.LaunchResult(out, out.Verdict, out.Status, out.CrashReports, more.String(), next)
}

type buildRunParams struct {
	apple.DeviceArgs
	apple.BuildRunArgs
	apple.AppRunArgs
	WatchS duration.Seconds `json:"watch_s,omitempty" jsonschema:"seconds to watch before fetching crash reports (default 3, max 600)"`
}

// BuildRunOutput is the result of device_build_run.
type BuildRunOutput = apple.BuildRunOutput[LaunchOutput]

// buildRun builds for the device, installs the app there and launches it
// (apple.BuildRun).
func (h *handler) buildRun(ctx context.Context, c *catalog.Call, in buildRunParams) (catalog.Result[BuildRunOutput], error) {
	return apple.BuildRun[LaunchOutput]{
		Args: in.BuildRunArgs, Env: in.Env,
		Launcher: func(ctx context.Context) (xcode.Launcher, error) {
			watch, err := in.WatchS.Duration("watch_s", apple.LaunchWatch, maxWatch)
			if err != nil {
				return nil, err
			}
			d, err := in.Resolve(ctx)
			return xcode.DeviceLaunchRequest{Device: d, Args: in.LaunchArgs, Env: in.LaunchEnv, Watch: watch, ReportDir: h.reportDir()}, err
		},
		Launched: func(o xcode.LaunchOutcome, _ xcode.Product) LaunchOutput { return newLaunchOutput(o) },
	}.Run(ctx, c, h.svc)
}
