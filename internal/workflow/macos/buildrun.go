package macos

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/render"
	"github.com/triage-dev/triage/internal/workflow/wire"
	"github.com/triage-dev/triage/internal/xcode"
)

type buildRunParams struct {
	apple.SchemeArgs
	Target    string            `json:"target,omitempty" jsonschema:"the application target, when the scheme builds several"`
	BuildArgs []string          `json:"build_args,omitempty" jsonschema:"extra xcodebuild arguments"`
	BuildEnv  map[string]string `json:"build_env,omitempty" jsonschema:"xcodebuild environment overrides"`
	Level     string            `json:"level,omitempty" jsonschema:"minimal, standard or verbose"`
	TimeoutS  duration.Seconds  `json:"timeout_s,omitempty" jsonschema:"build time limit, seconds"`
	LaunchArgs
}

// BuildRunOutput is the result of macos_build_run.
type BuildRunOutput struct {
	Verdict     string            `json:"verdict" jsonschema:"the verdict line"`
	Stage       string            `json:"stage" jsonschema:"the last stage reached: build, locate or launch"`
	Status      string            `json:"status" jsonschema:"the build's status, then launched, crashed or failed"`
	Build       string            `json:"build" jsonschema:"the build's verdict line"`
	Errors      int               `json:"errors" jsonschema:"compiler and linker errors"`
	Diagnostics []wire.Diagnostic `json:"diagnostics,omitempty" jsonschema:"build errors and warnings (bounded)"`
	App         *wire.Product     `json:"app,omitempty" jsonschema:"the app built: path, bundle id, executable"`
	Launch      *LaunchOutput     `json:"launch,omitempty" jsonschema:"the launch"`
	catalog.Captured
}

func (h *handler) buildRun(ctx context.Context, c *catalog.Call, in buildRunParams) (catalog.Result[BuildRunOutput], error) {
	var zero catalog.Result[BuildRunOutput]
	b, l, err := in.request(ctx, h.svc.Config.RunTimeout(), h.opts.ReportDirs)
	if err != nil {
		return zero, err
	}
	st, err := h.svc.Store(ctx)
	if err != nil {
		return zero, err
	}
	cp, err := capture.Open(ctx, st, store.Meta{Tool: c.Tool, Argv: []string{"xcodebuild", "build"}, Cwd: b.Request.Workspace + b.Request.Project},
		capture.Options{Budget: h.svc.Config.BudgetBytes() / 2, Filtered: true})
	if err != nil {
		return zero, err
	}
	b.Raw, b.RawID, b.Filtered, b.ReportDirs = cp, cp.ID(), cp.Filtered(), h.opts.ReportDirs
	b.Progress = func(p pipeline.Progress) {
		msg := fmt.Sprintf("building: %d lines, %s", p.Lines, p.Elapsed.Round(time.Second))
		c.Progress(ctx, float64(p.Lines), 0, msg)
		cp.RecordProgress(msg)
	}
	l.Notify = func(msg string) { c.Progress(ctx, 0, 0, msg); cp.RecordProgress(msg) }
	o, err := xcode.BuildAndLaunchOn(ctx, b, in.Target, l, l.Notify)
	if err != nil {
		cp.Abort()
		return zero, apple.UsageOf(err)
	}
	kept := cp.Close()
	answer := finish(newBuildRunOutput(o, kept), o.Build.Run.Log.Diagnostics, kept.Excerpt.Text)
	cr := cp.FinishWith(ctx, store.Final{Status: string(o.Build.Status), VerdictLine: o.Build.Line}, answer.Output)
	return render.StoreFailure(answer, cr), nil
}

// request validates the arguments (the build's before spending an
// xcodebuild -list on its scheme).
func (in buildRunParams) request(ctx context.Context, defaultTimeout time.Duration, reportDirs []string) (xcode.BuildRequest, xcode.MacLaunchRequest, error) {
	var zb xcode.BuildRequest
	var zl xcode.MacLaunchRequest
	level, err := logfilter.ParseLevel(in.Level)
	if err != nil {
		return zb, zl, fault.Usagef("level %q: use minimal, standard or verbose", in.Level)
	}
	limit, err := in.TimeoutS.Timeout(defaultTimeout, 0)
	if err != nil {
		return zb, zl, err
	}
	l, err := in.LaunchArgs.request(reportDirs)
	if err != nil {
		return zb, zl, err
	}
	req := xcode.Request{
		Workspace: in.WorkspacePath, Project: in.ProjectPath, Scheme: in.Scheme, Configuration: in.Configuration,
		Destination: xcode.Destination{Platform: "macOS"}, Args: in.BuildArgs, Env: in.BuildEnv,
	}
	if _, err := xcode.BuildCommand(xcode.ActionBuild, req); err != nil {
		return zb, zl, apple.UsageOf(err)
	}
	if err := apple.UsageOf(xcode.CheckScheme(ctx, req.Workspace, req.Project, req.Scheme)); err != nil {
		return zb, zl, err
	}
	return xcode.BuildRequest{Action: xcode.ActionBuild, Request: req, Level: level, Timeout: limit}, l, nil
}

func newBuildRunOutput(o *xcode.BuildAndLaunchOutcome, cr capture.Result) BuildRunOutput {
	b := o.Build
	out := BuildRunOutput{
		Verdict: o.Line, Stage: o.Stage, Status: o.Status, Build: b.Line,
		Errors: b.Run.Log.Errors + b.Run.Log.LinkerErrors, Diagnostics: wire.DiagnosticsOf(b.Run.Log.Diagnostics),
		Captured: catalog.NewCaptured(cr.ID, cr.Lines, cr.Truncated(b.Run.Log.Lines)),
	}
	if o.App != nil {
		p := wire.ProductOf(*o.App)
		out.App = &p
	}
	if o.Launch != nil {
		out.Launch = &LaunchOutput{Verdict: o.Launch.Line, Status: o.Launch.Status, App: o.App.Path, Process: xcode.AppProcess(*o.App),
			CrashReports: wire.AppCrashReportsOf(o.Launch.CrashReports)}
	}
	return out
}

func finish(out BuildRunOutput, diags []logfilter.Diagnostic, excerpt string) catalog.Result[BuildRunOutput] {
	var b strings.Builder
	b.WriteString(out.Verdict + "\n")
	if out.Stage != "build" {
		fmt.Fprintf(&b, "build: %s\n", out.Build)
	}
	if out.App != nil {
		fmt.Fprintf(&b, "app: %s (bundle id %s)\n", out.App.Path, out.App.BundleID)
	}
	if out.Launch != nil {
		writeReports(&b, out.Launch.CrashReports)
	}
	render.Errors(&b, diags, nil)
	if out.Stage == "build" {
		catalog.WriteExcerpt(&b, out.Captured, excerpt)
	} else {
		fmt.Fprintf(&b, "build log: %s (%d lines)\n", out.OutputID, out.TotalLines)
	}
	outcome := catalog.OK
	if out.Status != "launched" {
		outcome = catalog.Failed
	}
	return catalog.Result[BuildRunOutput]{Text: b.String(), Output: out, Outcome: outcome}
}
