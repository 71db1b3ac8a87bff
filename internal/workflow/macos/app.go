package macos

import (
	"cmp"
	"context"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/wire"
	"github.com/triage-dev/triage/internal/xcode"
)

// LaunchArgs are how a macOS app is launched and watched.
type LaunchArgs struct {
	Args        []string          `json:"args,omitempty" jsonschema:"launch arguments"`
	Env         map[string]string `json:"env,omitempty" jsonschema:"environment for the app"`
	ProcessName string            `json:"process_name,omitempty" jsonschema:"executable name (default: the bundle's name)"`
	WatchS      duration.Seconds  `json:"watch_s,omitempty" jsonschema:"seconds to watch for a crash (default 3, max 60)"`
}

// request validates the arguments into a launch request.
func (a LaunchArgs) request(reportDirs []string) (xcode.MacLaunchRequest, error) {
	watch, err := apple.CheckLaunch(a.WatchS, apple.MaxWatch, a.Env)
	if err != nil {
		return xcode.MacLaunchRequest{}, err
	}
	if p := a.ProcessName; p != "" && strings.ContainsAny(p, "/\x00") {
		return xcode.MacLaunchRequest{}, fault.Usagef("process_name %q: give the executable's name", p)
	}
	return xcode.MacLaunchRequest{Args: a.Args, Env: a.Env, Process: a.ProcessName, Watch: watch, ReportDirs: reportDirs}, nil
}

type launchParams struct {
	AppPath  string `json:"app_path,omitempty" jsonschema:".app bundle path (or bundle_id)"`
	BundleID string `json:"bundle_id,omitempty" jsonschema:"the app's bundle identifier (or app_path)"`
	LaunchArgs
}

// LaunchOutput is the result of macos_launch_app.
type LaunchOutput struct {
	Verdict      string                `json:"verdict" jsonschema:"the verdict line"`
	Status       string                `json:"status" jsonschema:"launched, crashed or failed"`
	App          string                `json:"app,omitempty" jsonschema:"the app launched, by path or bundle id"`
	Process      string                `json:"process" jsonschema:"the process name watched"`
	CrashReports []wire.AppCrashReport `json:"crash_reports,omitempty" jsonschema:"crash reports the app wrote after launch"`
}

func (h *handler) launch(ctx context.Context, c *catalog.Call, in launchParams) (catalog.Result[LaunchOutput], error) {
	var zero catalog.Result[LaunchOutput]
	if err := apple.UsageOf(xcode.CheckMacApp(in.AppPath, in.BundleID)); err != nil {
		return zero, err
	}
	req, err := in.request(h.opts.ReportDirs)
	if err != nil {
		return zero, err
	}
	req.App, req.BundleID = in.AppPath, in.BundleID
	req.Notify = func(msg string) { c.Progress(ctx, 0, 0, msg) }
	o := xcode.LaunchMac(ctx, req)
	out := LaunchOutput{Verdict: o.Line, Status: o.Status, App: cmp.Or(in.AppPath, in.BundleID), Process: req.MacProcess(), CrashReports: wire.AppCrashReportsOf(o.CrashReports)}
	stop := "stop: " + catalog.NextCall("macos_stop_app", map[string]any{"process_name": out.Process})
	return apple.LaunchResult(out, out.Verdict, out.Status, out.CrashReports, "", stop), nil
}

type stopParams struct {
	ProcessName string `json:"process_name" jsonschema:"the app's executable name"`
}

// StopOutput is the result of macos_stop_app.
type StopOutput struct {
	Verdict string `json:"verdict" jsonschema:"the verdict line"`
}

func (h *handler) stop(ctx context.Context, c *catalog.Call, in stopParams) (catalog.Result[StopOutput], error) {
	if err := xcode.StopMac(ctx, in.ProcessName); err != nil {
		return catalog.Result[StopOutput]{}, apple.UsageOf(err)
	}
	line := "STOPPED " + in.ProcessName + " (SIGTERM)"
	return catalog.Result[StopOutput]{Text: line + "\n", Output: StopOutput{Verdict: line}}, nil
}

type buildRunParams struct {
	apple.BuildRunArgs
	BuildEnv map[string]string `json:"build_env,omitempty" jsonschema:"xcodebuild environment overrides"`
	LaunchArgs
}

// BuildRunOutput is the result of macos_build_run.
type BuildRunOutput = apple.BuildRunOutput[LaunchOutput]

// buildRun builds for this Mac and launches the app by its path
// (apple.BuildRun).
func (h *handler) buildRun(ctx context.Context, c *catalog.Call, in buildRunParams) (catalog.Result[BuildRunOutput], error) {
	return apple.BuildRun[LaunchOutput]{
		Args: in.BuildRunArgs, Env: in.BuildEnv, ReportDirs: h.opts.ReportDirs,
		Launcher: func(context.Context) (xcode.Launcher, error) { return in.LaunchArgs.request(h.opts.ReportDirs) },
		Launched: func(o xcode.LaunchOutcome, app xcode.Product) LaunchOutput {
			return LaunchOutput{Verdict: o.Line, Status: o.Status, App: app.Path, Process: xcode.AppProcess(app), CrashReports: wire.AppCrashReportsOf(o.CrashReports)}
		},
	}.Run(ctx, c, h.svc)
}
