package simulator

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/wire"
	"github.com/triage-dev/triage/internal/xcode"
)

type installParams struct {
	apple.SimulatorArgs
	AppPath string `json:"app_path" jsonschema:".app bundle path"`
}

func (h *handler) install(ctx context.Context, c *catalog.Call, in installParams) (catalog.Result[SimOutput], error) {
	var zero catalog.Result[SimOutput]
	if err := xcode.CheckApp(in.AppPath); err != nil {
		return zero, err
	}
	d, err := in.Resolve(ctx)
	if err != nil {
		return zero, err
	}
	return h.installOn(ctx, d, in.AppPath)
}

func (h *handler) installOn(ctx context.Context, d xcode.Device, app string) (catalog.Result[SimOutput], error) {
	abs, err := filepath.Abs(app)
	if err != nil {
		return catalog.Result[SimOutput]{}, err
	}
	if _, err := xcode.Run(ctx, xcode.InstallCommand(d.UDID, abs), xcode.InstallTimeout); err != nil {
		return failedOrError(fmt.Sprintf("INSTALL FAILED on %s: ", name(d)), d, err)
	}
	return simResult(fmt.Sprintf("INSTALLED %s on %s", filepath.Base(abs), name(d)), d), nil
}

// failedOrError makes a simctl command that ran and failed a failed
// outcome, its verdict prefix and the command's message; anything else
// stays an error.
func failedOrError(prefix string, d xcode.Device, err error) (catalog.Result[SimOutput], error) {
	var ce *xcode.CommandError
	if !errors.As(err, &ce) {
		return catalog.Result[SimOutput]{}, apple.UsageOf(err)
	}
	r := simResult(prefix+ce.Error(), d)
	r.Outcome = catalog.Failed
	return r, nil
}

type launchParams struct {
	apple.SimulatorArgs
	apple.AppLaunchArgs
	WatchS duration.Seconds `json:"watch_s,omitempty" jsonschema:"seconds to watch for a crash (default 3, max 60)"`
}

// LaunchOutput is the result of sim_launch_app.
type LaunchOutput struct {
	Verdict      string                `json:"verdict" jsonschema:"the verdict line"`
	Status       string                `json:"status" jsonschema:"launched, crashed or failed"`
	Simulator    string                `json:"simulator" jsonschema:"the simulator's UDID"`
	BundleID     string                `json:"bundle_id" jsonschema:"the app launched"`
	Pid          int                   `json:"pid,omitempty" jsonschema:"the app's process id"`
	CrashReports []wire.AppCrashReport `json:"crash_reports,omitempty" jsonschema:"crash reports the app or simulator wrote after launch"`
}

func (h *handler) launch(ctx context.Context, c *catalog.Call, in launchParams) (catalog.Result[LaunchOutput], error) {
	watch, process, err := in.Check(in.WatchS, apple.MaxWatch)
	if err != nil {
		return catalog.Result[LaunchOutput]{}, err
	}
	d, err := in.Resolve(ctx)
	if err != nil {
		return catalog.Result[LaunchOutput]{}, err
	}
	out := newLaunchOutput(xcode.Launch(ctx, xcode.LaunchRequest{
		Device: d, BundleID: in.BundleID, Args: in.Args, Env: in.Env, Process: process, Watch: watch,
		ReportDirs: h.opts.ReportDirs, Notify: func(msg string) { c.Progress(ctx, 0, 0, msg) },
	}))
	next := "next: " + catalog.NextCall("sim_log_capture", map[string]any{"action": "start", "bundle_id": out.BundleID})
	return apple.LaunchResult(out, out.Verdict, out.Status, out.CrashReports, "", next), nil
}

func newLaunchOutput(o xcode.LaunchOutcome) LaunchOutput {
	return LaunchOutput{Verdict: o.Line, Status: o.Status, Simulator: o.Simulator, BundleID: o.BundleID, Pid: o.Pid, CrashReports: wire.AppCrashReportsOf(o.CrashReports)}
}

type stopParams struct {
	apple.SimulatorArgs
	BundleID string `json:"bundle_id" jsonschema:"the app's bundle identifier"`
}

func (h *handler) stop(ctx context.Context, c *catalog.Call, in stopParams) (catalog.Result[SimOutput], error) {
	if err := apple.UsageOf(xcode.CheckBundleID(in.BundleID)); err != nil {
		return catalog.Result[SimOutput]{}, err
	}
	d, err := in.Resolve(ctx)
	if err != nil {
		return catalog.Result[SimOutput]{}, err
	}
	if _, err := xcode.Run(ctx, xcode.TerminateCommand(d.UDID, in.BundleID), 0); err != nil {
		return failedOrError(fmt.Sprintf("STOP FAILED: %s on %s: ", in.BundleID, name(d)), d, err)
	}
	return simResult(fmt.Sprintf("STOPPED %s on %s", in.BundleID, name(d)), d), nil
}

type buildRunParams struct {
	apple.SimulatorArgs
	apple.BuildRunArgs
	apple.AppRunArgs
	WatchS duration.Seconds `json:"watch_s,omitempty" jsonschema:"seconds to watch for a crash (default 3, max 60)"`
}

// BuildRunOutput is the result of sim_build_run.
type BuildRunOutput = apple.BuildRunOutput[LaunchOutput]

// buildRun builds for the simulator, boots it, installs the app and
// launches it (apple.BuildRun).
func (h *handler) buildRun(ctx context.Context, c *catalog.Call, in buildRunParams) (catalog.Result[BuildRunOutput], error) {
	return apple.BuildRun[LaunchOutput]{
		Args: in.BuildRunArgs, Env: in.Env, ReportDirs: h.opts.ReportDirs,
		Launcher: func(ctx context.Context) (xcode.Launcher, error) {
			watch, err := in.WatchS.Duration("watch_s", apple.LaunchWatch, apple.MaxWatch)
			if err != nil {
				return nil, err
			}
			d, err := in.Resolve(ctx)
			return xcode.LaunchRequest{Device: d, Args: in.LaunchArgs, Env: in.LaunchEnv, Watch: watch, ReportDirs: h.opts.ReportDirs}, err
		},
		Launched: func(o xcode.LaunchOutcome, _ xcode.Product) LaunchOutput { return newLaunchOutput(o) },
	}.Run(ctx, c, h.svc)
}
