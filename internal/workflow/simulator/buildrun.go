package simulator

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/buildrun"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/excerpt"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/render"
	"github.com/triage-dev/triage/internal/xcode"
)

type buildRunParams struct {
	apple.SimulatorArgs
	apple.SchemeArgs
	Target     string            `json:"target,omitempty" jsonschema:"the application target, when the scheme builds several"`
	BuildArgs  []string          `json:"build_args,omitempty" jsonschema:"extra xcodebuild arguments"`
	Env        map[string]string `json:"env,omitempty" jsonschema:"xcodebuild environment overrides"`
	LaunchArgs []string          `json:"launch_args,omitempty" jsonschema:"arguments for the app"`
	LaunchEnv  map[string]string `json:"launch_env,omitempty" jsonschema:"environment for the app"`
	WatchS     duration.Seconds  `json:"watch_s,omitempty" jsonschema:"seconds to watch for a crash (default 3, max 60)"`
	Level      string            `json:"level,omitempty" jsonschema:"minimal, standard or verbose"`
	TimeoutS   duration.Seconds  `json:"timeout_s,omitempty" jsonschema:"build time limit, seconds"`
}

// BuildRunOutput is the result of sim_build_run.
type BuildRunOutput struct {
	Verdict     string                 `json:"verdict" jsonschema:"the verdict line"`
	Stage       string                 `json:"stage" jsonschema:"the last stage reached: build, locate, boot, install or launch"`
	Status      string                 `json:"status" jsonschema:"the build's status, then launched, crashed or failed"`
	Build       string                 `json:"build" jsonschema:"the build's verdict line"`
	Errors      int                    `json:"errors" jsonschema:"compiler and linker errors"`
	Diagnostics []logfilter.Diagnostic `json:"diagnostics,omitempty" jsonschema:"build errors and warnings (bounded)"`
	App         *xcode.Product         `json:"app,omitempty" jsonschema:"the app built: path, bundle id, executable"`
	Launch      *LaunchOutput          `json:"launch,omitempty" jsonschema:"the launch"`
	catalog.Captured
}

func (h *handler) buildRun(ctx context.Context, c *catalog.Call, in buildRunParams) (catalog.Result[BuildRunOutput], error) {
	var zero catalog.Result[BuildRunOutput]
	level, err := logfilter.ParseLevel(in.Level)
	if err != nil {
		return zero, fault.Usagef("level %q: use minimal, standard or verbose", in.Level)
	}
	limit, err := in.TimeoutS.Timeout(h.svc.Config.RunTimeout(), 0)
	if err != nil {
		return zero, err
	}
	watch, err := in.WatchS.Duration("watch_s", launchWatch, maxWatch)
	if err != nil {
		return zero, err
	}
	d, err := in.Resolve(ctx)
	if err != nil {
		return zero, err
	}
	req := xcode.Request{
		Workspace: in.WorkspacePath, Project: in.ProjectPath, Scheme: in.Scheme, Configuration: in.Configuration,
		Destination: xcode.Destination{SimulatorID: d.UDID}, Args: in.BuildArgs, Env: in.Env,
	}
	if _, err := xcode.BuildCommand(xcode.ActionBuild, req); err != nil {
		return zero, apple.UsageOf(err)
	}
	if err := apple.UsageOf(xcode.CheckScheme(ctx, req.Workspace, req.Project, req.Scheme)); err != nil {
		return zero, err
	}
	out, o, ex, err := h.build(ctx, c, req, level, limit)
	if err != nil {
		return zero, err
	}
	if !o.Status.OK() {
		return finish(out, ex), nil
	}
	out.Stage = "locate"
	ts, err := xcode.BuildSettings(ctx, req)
	if err == nil {
		var app xcode.Product
		if app, err = xcode.App(ts, in.Target); err == nil {
			out.App = &app
		}
	}
	if err != nil {
		out.Status, out.Verdict = "failed", "BUILT, but the app was not found: "+err.Error()
		return finish(out, ex), nil
	}
	out.Stage = "boot"
	c.Progress(ctx, 0, 0, "booting "+d.UDID)
	if _, err := xcode.Run(ctx, xcode.BootStatusCommand(d.UDID), bootTimeout); err != nil {
		out.Status, out.Verdict = "failed", "BUILT, but the simulator did not boot: "+err.Error()
		return finish(out, ex), nil
	}
	out.Stage = "install"
	if _, err := xcode.Run(ctx, xcode.InstallCommand(d.UDID, out.App.Path), installTimeout); err != nil {
		out.Status, out.Verdict = "failed", "BUILT, but installing failed: "+err.Error()
		return finish(out, ex), nil
	}
	out.Stage = "launch"
	process := xcode.ProcessName(out.App.BundleID)
	if out.App.Executable != "" {
		process = filepath.Base(out.App.Executable)
	}
	l := h.launchOn(ctx, c, d, out.App.BundleID, in.LaunchArgs, in.LaunchEnv, process, watch)
	out.Launch = &l
	out.Status = l.Status
	out.Verdict = l.Verdict
	if l.Status == "launched" {
		out.Verdict = fmt.Sprintf("BUILT AND LAUNCHED %s (pid %d) on %s; no crash within %s", l.BundleID, l.Pid, name(d), watch)
	}
	return finish(out, ex), nil
}

// build runs xcodebuild build, its log going to the store.
func (h *handler) build(ctx context.Context, c *catalog.Call, req xcode.Request, level logfilter.Level, limit time.Duration) (BuildRunOutput, *xcode.BuildOutcome, excerpt.Excerpt, error) {
	var out BuildRunOutput
	st, err := h.svc.Store(ctx)
	if err != nil {
		return out, nil, excerpt.Excerpt{}, err
	}
	w, err := st.Create(ctx, store.Meta{Tool: c.Tool, Argv: []string{"xcodebuild", "build"}, Cwd: req.Workspace + req.Project})
	if err != nil {
		return out, nil, excerpt.Excerpt{}, err
	}
	ex := excerpt.New(h.svc.Config.BudgetBytes()/2, func(line []byte) bool { return logfilter.Classify(line).MustKeep() })
	o, err := xcode.Build(ctx, xcode.BuildRequest{
		Action: xcode.ActionBuild, Request: req, Level: level, Timeout: limit,
		Raw: w, RawID: w.ID(), Filtered: ex, ReportDirs: h.opts.ReportDirs,
		Progress: func(p buildrun.Progress) {
			c.Progress(ctx, float64(p.Lines), 0, fmt.Sprintf("building: %d lines, %s", p.Lines, p.Elapsed.Round(time.Second)))
		},
	})
	if err != nil {
		w.Abort()
		return out, nil, excerpt.Excerpt{}, apple.UsageOf(err)
	}
	ex.Flush()
	if err := w.Finish(context.WithoutCancel(ctx), store.Final{Status: string(o.Status), VerdictLine: o.Line}); err != nil {
		h.svc.Log.Warn("storing sim_build_run output", "err", err)
	}
	filtered := ex.Excerpt()
	out = BuildRunOutput{
		Verdict: o.Line, Stage: "build", Status: string(o.Status), Build: o.Line,
		Errors: o.Run.Log.Errors + o.Run.Log.LinkerErrors, Diagnostics: o.Run.Log.Diagnostics,
		Captured: catalog.NewCaptured(w.ID(), w.Lines(), filtered.Truncated || int64(filtered.TotalLines) < o.Run.Log.Lines),
	}
	return out, o, filtered, nil
}

func finish(out BuildRunOutput, ex excerpt.Excerpt) catalog.Result[BuildRunOutput] {
	var b strings.Builder
	b.WriteString(out.Verdict)
	b.WriteByte('\n')
	if out.Stage != "build" {
		fmt.Fprintf(&b, "build: %s\n", out.Build)
	}
	if out.App != nil {
		fmt.Fprintf(&b, "app: %s (bundle id %s)\n", out.App.Path, out.App.BundleID)
	}
	if out.Launch != nil {
		writeReports(&b, out.Launch.CrashReports)
	}
	render.Errors(&b, out.Diagnostics, nil)
	if out.Stage == "build" {
		catalog.WriteExcerpt(&b, out.Captured, ex.Text)
	} else {
		fmt.Fprintf(&b, "build log: %s (%d lines)\n", out.OutputID, out.TotalLines)
	}
	outcome := catalog.OK
	if out.Status != "launched" {
		outcome = catalog.Failed
	}
	return catalog.Result[BuildRunOutput]{Text: b.String(), Output: out, Outcome: outcome}
}
