package xcode

import (
	"context"
	"fmt"
	"time"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/render"
	"github.com/triage-dev/triage/internal/workflow/wire"
	"github.com/triage-dev/triage/internal/xcode"
)

type testParams struct {
	ActionArgs
	OnlyTesting []string          `json:"only_testing,omitempty" jsonschema:"Target[/Class[/method]] to run"`
	SkipTesting []string          `json:"skip_testing,omitempty" jsonschema:"Target[/Class[/method]] to skip"`
	TestPlan    string            `json:"test_plan,omitempty" jsonschema:"test plan name"`
	TestEnv     map[string]string `json:"test_env,omitempty" jsonschema:"environment for the tests (as TEST_RUNNER_*)"`
	Coverage    string            `json:"coverage,omitempty" jsonschema:"line coverage (-enableCodeCoverage YES, read with xccov from the result bundle) of files under this path (\".\": all)"`
}

// BuildOutput is the result of xcode_build, xcode_test and xcode_clean.
type BuildOutput struct {
	Verdict      string                `json:"verdict" jsonschema:"the verdict line"`
	Status       string                `json:"status" jsonschema:"succeeded, failed, crashed, timed_out, interrupted, no_tests or silent_failure"`
	Command      string                `json:"command" jsonschema:"the xcodebuild command (run as an argv, without a shell)"`
	ExitCode     int                   `json:"exit_code" jsonschema:"xcodebuild's exit status, -1 when killed by a signal"`
	Signal       string                `json:"signal,omitempty" jsonschema:"the signal that killed xcodebuild"`
	Errors       int                   `json:"errors" jsonschema:"compiler and linker errors"`
	Warnings     int                   `json:"warnings" jsonschema:"warnings"`
	Diagnostics  []wire.Diagnostic     `json:"diagnostics,omitempty" jsonschema:"errors, warnings and failure lines (bounded), with file and line"`
	Tests        *wire.TestReport      `json:"tests,omitempty" jsonschema:"the tests as the log showed them, with crash indicators"`
	XCResult     *wire.TestSummary     `json:"xcresult,omitempty" jsonschema:"the result bundle's summary: authoritative counts and failure messages"`
	ResultBundle string                `json:"result_bundle,omitempty" jsonschema:"the .xcresult path"`
	Coverage     *wire.Coverage        `json:"coverage,omitempty" jsonschema:"a coverage run's line coverage"`
	CrashReports []wire.AppCrashReport `json:"crash_reports,omitempty" jsonschema:"crash reports written during the run by the app, test runner, testmanagerd or simulator"`
	Notes        []string              `json:"notes,omitempty" jsonschema:"disagreements and caveats"`
	DurationMS   int64                 `json:"duration_ms" jsonschema:"wall time"`
	catalog.Captured
}

func (h *handler) build(ctx context.Context, c *catalog.Call, in ActionArgs) (catalog.Result[BuildOutput], error) {
	req, err := in.request(ctx)
	if err != nil {
		return catalog.Result[BuildOutput]{}, err
	}
	req.Args, req.Env = in.Args, in.Env
	return h.xcodebuild(ctx, c, xcode.ActionBuild, req, in, "")
}

func (h *handler) clean(ctx context.Context, c *catalog.Call, in ActionArgs) (catalog.Result[BuildOutput], error) {
	req, err := in.request(ctx)
	if err != nil {
		return catalog.Result[BuildOutput]{}, err
	}
	req.Args, req.Env = in.Args, in.Env
	return h.xcodebuild(ctx, c, xcode.ActionClean, req, in, "")
}

func (h *handler) test(ctx context.Context, c *catalog.Call, in testParams) (catalog.Result[BuildOutput], error) {
	req, err := in.request(ctx)
	if err != nil {
		return catalog.Result[BuildOutput]{}, err
	}
	req.Args, req.Env = in.Args, in.Env
	req.OnlyTesting, req.SkipTesting, req.TestPlan, req.TestEnv, req.Coverage = in.OnlyTesting, in.SkipTesting, in.TestPlan, in.TestEnv, in.Coverage != ""
	return h.xcodebuild(ctx, c, xcode.ActionTest, req, in.ActionArgs, in.Coverage)
}

// xcodebuild runs one action, its log streaming into the store and the
// filtered excerpt, and renders the verdict; a coverage run's report is
// kept with it, its files under coverFilter listed.
func (h *handler) xcodebuild(ctx context.Context, c *catalog.Call, action xcode.Action, req xcode.Request, in ActionArgs, coverFilter string) (catalog.Result[BuildOutput], error) {
	var zero catalog.Result[BuildOutput]
	level, err := logfilter.ParseLevel(in.Level)
	if err != nil {
		return zero, fault.Usagef("level %q: use minimal, standard or verbose", in.Level)
	}
	limit, err := in.TimeoutS.Timeout(h.svc.Config.RunTimeout(), 0)
	if err != nil {
		return zero, err
	}
	// Validate the request before spending an xcodebuild -list on it.
	if _, err := xcode.BuildCommand(action, withBundle(action, req)); err != nil {
		return zero, apple.UsageOf(err)
	}
	if err := apple.UsageOf(xcode.CheckScheme(ctx, req.Workspace, req.Project, req.Scheme)); err != nil {
		return zero, err
	}
	st, err := h.svc.Store(ctx)
	if err != nil {
		return zero, err
	}
	cp, err := capture.Open(ctx, st, store.Meta{Tool: c.Tool, Argv: []string{"xcodebuild", string(action)}, Cwd: req.Workspace + req.Project},
		capture.Options{Budget: h.svc.Config.BudgetBytes() / 2, Filtered: true})
	if err != nil {
		return zero, err
	}
	o, err := xcode.Build(ctx, xcode.BuildRequest{
		Action: action, Request: req, Level: level, Timeout: limit,
		Raw: cp, RawID: cp.ID(), Filtered: cp.Filtered(), ReportDirs: h.opts.ReportDirs,
		Progress: func(p pipeline.Progress) {
			msg := fmt.Sprintf("xcodebuild %s: %d lines, %s", action, p.Lines, p.Elapsed.Round(time.Second))
			c.Progress(ctx, float64(p.Lines), 0, msg)
			cp.RecordProgress(msg)
		},
	})
	if err != nil {
		cp.Abort()
		return zero, apple.UsageOf(err)
	}
	out := newBuildOutput(o)
	covText, cov := keepCoverage(ctx, st, cp.ID(), o, coverFilter)
	out.Coverage = cov
	kept := cp.Close()
	out.Captured = catalog.NewCaptured(kept.ID, kept.Lines, kept.Truncated(o.Run.Log.Lines))
	cr := cp.FinishWith(ctx, store.Final{Status: string(o.Status), VerdictLine: o.Line, ExitCode: out.ExitCode}, out)
	outcome := catalog.OK
	if !o.Status.OK() {
		outcome = catalog.Failed
	}
	return render.StoreFailure(catalog.Result[BuildOutput]{Text: renderBuild(out, o, cr.Excerpt, covText), Output: out, Outcome: outcome}, cr), nil
}

// withBundle gives a test request the result bundle path Build will set,
// so that validation sees what will run.
func withBundle(action xcode.Action, r xcode.Request) xcode.Request {
	if action == xcode.ActionTest {
		r.ResultBundlePath = "validate.xcresult"
	}
	return r
}

func newBuildOutput(o *xcode.BuildOutcome) BuildOutput {
	res := o.Run
	out := BuildOutput{
		Verdict: o.Line, Status: string(o.Status), Command: o.Command.CommandLine(),
		Errors: res.Log.Errors + res.Log.LinkerErrors, Warnings: res.Log.Warnings,
		Diagnostics: wire.DiagnosticsOf(res.Log.Diagnostics), Tests: wire.TestReportOf(res.Report), XCResult: wire.TestSummaryOf(o.Summary),
		ResultBundle: o.ResultBundle, CrashReports: wire.AppCrashReportsOf(o.CrashReports),
		Notes: append(append([]string(nil), res.Notes...), o.Notes...), DurationMS: res.Duration.Milliseconds(),
	}
	if len(res.Steps) > 0 && res.Steps[0].Ran {
		r := res.Steps[0].Outcome.Result
		out.ExitCode, out.Signal = r.ExitCode, r.SignalName
	}
	if res.Report != nil {
		out.Notes = append(out.Notes, res.Report.Notes...)
	}
	return out
}
