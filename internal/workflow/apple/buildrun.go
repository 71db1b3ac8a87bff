package apple

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/textclip"
	"github.com/triage-dev/triage/internal/workflow/render"
	"github.com/triage-dev/triage/internal/workflow/wire"
	"github.com/triage-dev/triage/internal/xcode"
)

// BuildRunArgs are the build's arguments of sim_build_run,
// device_build_run and macos_build_run (xcodebuild's environment is
// named apart: macOS's `env` is the app's).
type BuildRunArgs struct {
	SchemeArgs
	Target    string           `json:"target,omitempty" jsonschema:"the application target, when the scheme builds several"`
	BuildArgs []string         `json:"build_args,omitempty" jsonschema:"extra xcodebuild arguments"`
	Level     string           `json:"level,omitempty" jsonschema:"minimal, standard or verbose"`
	TimeoutS  duration.Seconds `json:"timeout_s,omitempty" jsonschema:"build time limit, seconds"`
}

// AppRunArgs are the build-and-run arguments of the iOS platforms (a
// simulator, a device): xcodebuild's environment, the app's arguments and
// environment.
type AppRunArgs struct {
	Env        map[string]string `json:"env,omitempty" jsonschema:"xcodebuild environment overrides"`
	LaunchArgs []string          `json:"launch_args,omitempty" jsonschema:"arguments for the app"`
	LaunchEnv  map[string]string `json:"launch_env,omitempty" jsonschema:"environment for the app"`
}

// BuildRunOutput is the answer of a build and run; L is the platform's
// launch answer (its *_launch_app's).
type BuildRunOutput[L any] struct {
	Verdict     string            `json:"verdict" jsonschema:"the verdict line"`
	Stage       string            `json:"stage" jsonschema:"the last stage reached: build, locate, boot (a simulator), install (a simulator, a device) or launch"`
	Status      string            `json:"status" jsonschema:"the build's status, then launched, exited (a device's app), crashed or failed"`
	Build       string            `json:"build" jsonschema:"the build's verdict line"`
	Errors      int               `json:"errors" jsonschema:"compiler and linker errors"`
	Diagnostics []wire.Diagnostic `json:"diagnostics,omitempty" jsonschema:"build errors and warnings (bounded)"`
	App         *wire.Product     `json:"app,omitempty" jsonschema:"the app built: path, bundle id, executable"`
	Launch      *L                `json:"launch,omitempty" jsonschema:"the launch"`
	catalog.Captured
}

// BuildRun is one call of a build-and-run tool, its arguments decoded.
type BuildRun[L any] struct {
	Args BuildRunArgs
	Env  map[string]string // xcodebuild's
	// ReportDirs are where the crash reports of a failed build are looked
	// for (xcode.BuildRequest).
	ReportDirs []string
	// Launcher checks the launch's arguments and names the platform's
	// launcher; it runs after the build's arguments are checked, before
	// its command and scheme are.
	Launcher func(ctx context.Context) (xcode.Launcher, error)
	// Launched is the platform's answer for the launch of the app built.
	Launched func(o xcode.LaunchOutcome, app xcode.Product) L
}

// Run checks the arguments, then builds and launches with the build's
// log captured (xcode.BuildAndLaunchCaptured), and renders the verdict.
func (r BuildRun[L]) Run(ctx context.Context, c *catalog.Call, svc *services.Set) (catalog.Result[BuildRunOutput[L]], error) {
	var zero catalog.Result[BuildRunOutput[L]]
	b, l, err := r.request(ctx, svc.Config.RunTimeout())
	if err != nil {
		return zero, err
	}
	b.Limit = c.Limit("timeout_s", r.Args.TimeoutS > 0, svc.Config.RunTimeoutKey()).String()
	sink, err := LogSink(ctx, c, svc)
	if err != nil {
		return zero, err
	}
	o, cp, err := xcode.BuildAndLaunchCaptured(ctx, sink, b, r.Args.Target, l)
	if err != nil {
		return zero, UsageOf(err)
	}
	answer := finish(r.output(o, cp.Kept), o, cp.Kept.Excerpt.Text)
	cr := cp.FinishWith(ctx, store.Final{Status: string(o.Build.Status), VerdictLine: o.Build.Line}, answer.Output)
	return render.StoreFailure(answer, cr), nil
}

// LogSink is where a build's log goes: the store, as the output of call c,
// with half the answer's budget, its progress told to the caller.
func LogSink(ctx context.Context, c *catalog.Call, svc *services.Set) (xcode.LogSink, error) {
	st, err := svc.Store(ctx)
	progress := func(lines int64, msg string) { c.Progress(ctx, float64(lines), 0, msg) }
	return xcode.LogSink{Store: st, Tool: c.Tool, Budget: svc.Config.BudgetBytes() / 2, Progress: progress}, err
}

// request checks the arguments: the build's, the launch's (naming the
// launcher), then the build for the launcher's destination
// (xcode.CheckBuild).
func (r BuildRun[L]) request(ctx context.Context, defaultTimeout time.Duration) (xcode.BuildRequest, xcode.Launcher, error) {
	a := r.Args
	req := xcode.Request{Workspace: a.WorkspacePath, Project: a.ProjectPath, Scheme: a.Scheme, Configuration: a.Configuration, Args: a.BuildArgs, Env: r.Env}
	b, err := xcode.NewBuildRequest(xcode.ActionBuild, req, a.Level, a.TimeoutS, defaultTimeout)
	if err != nil {
		return b, nil, err
	}
	l, err := r.Launcher(ctx)
	if err != nil {
		return b, nil, err
	}
	b.Request.Destination, b.ReportDirs = l.Destination(), r.ReportDirs
	return b, l, UsageOf(xcode.CheckBuild(ctx, b))
}

// output is the structured answer of a build and launch whose build log
// cr captured.
func (r BuildRun[L]) output(o *xcode.BuildAndLaunchOutcome, cr capture.Result) BuildRunOutput[L] {
	b := o.Build
	out := BuildRunOutput[L]{
		Verdict: o.Line, Stage: o.Stage, Status: o.Status, Build: b.Line,
		Errors: b.Run.Log.Errors + b.Run.Log.LinkerErrors, Diagnostics: wire.DiagnosticsOf(b.Run.Log.Diagnostics),
		Captured: catalog.NewCaptured(cr.ID, cr.Lines, cr.Truncated(b.Run.Log.Lines)),
	}
	if o.App != nil {
		p := wire.ProductOf(*o.App)
		out.App = &p
	}
	if o.Launch != nil {
		l := r.Launched(*o.Launch, *o.App)
		out.Launch = &l
	}
	return out
}

// finish renders the answer: the verdict, the build's when the build
// passed, the app, the launch's crash reports, errors, and the build's log (its
// excerpt when the build is what failed).
func finish[L any](out BuildRunOutput[L], o *xcode.BuildAndLaunchOutcome, excerpt string) catalog.Result[BuildRunOutput[L]] {
	var b strings.Builder
	b.WriteString(out.Verdict + "\n")
	if out.Stage != xcode.StageBuild {
		fmt.Fprintf(&b, "build: %s\n", out.Build)
	}
	if out.App != nil {
		fmt.Fprintf(&b, "app: %s (bundle id %s)\n", out.App.Path, out.App.BundleID)
	}
	if o.Launch != nil {
		WriteReports(&b, wire.AppCrashReportsOf(o.Launch.CrashReports))
	}
	render.Errors(&b, o.Build.Run.Log.Diagnostics, nil)
	if out.Stage == xcode.StageBuild {
		catalog.WriteExcerpt(&b, out.Captured, excerpt)
	} else {
		fmt.Fprintf(&b, "build log: %s (%s)\n", out.OutputID, textclip.Count(out.TotalLines, "line"))
	}
	return catalog.Result[BuildRunOutput[L]]{Text: b.String(), Output: out, Outcome: RanOutcome(out.Status)}
}
