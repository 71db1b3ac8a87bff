package xcode

import (
	"context"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/catalog"
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
	Coverage    string            `json:"coverage,omitempty" jsonschema:"line coverage (xccov, -enableCodeCoverage YES) of files under this path (\".\": all); lines if 5 files or fewer; a failed test's path"`
}

// ActionOutput is the result of xcode_build and xcode_clean, and the part
// of BuildOutput every xcodebuild action fills.
type ActionOutput struct {
	Verdict      string                `json:"verdict" jsonschema:"the verdict line"`
	Status       string                `json:"status" jsonschema:"succeeded, failed, crashed, timed_out, interrupted, silent_failure or (tests) no_tests"`
	Command      string                `json:"command" jsonschema:"the xcodebuild command (run as an argv, without a shell)"`
	ExitCode     int                   `json:"exit_code" jsonschema:"xcodebuild's exit status, -1 when killed by a signal"`
	Signal       string                `json:"signal,omitempty" jsonschema:"the signal that killed xcodebuild"`
	Errors       int                   `json:"errors" jsonschema:"compiler and linker errors"`
	Warnings     int                   `json:"warnings" jsonschema:"warnings"`
	Diagnostics  []wire.Diagnostic     `json:"diagnostics,omitempty" jsonschema:"errors, warnings and failure lines (bounded), with file and line"`
	CrashReports []wire.AppCrashReport `json:"crash_reports,omitempty" jsonschema:"crash reports written during the run: by the app, test runner, testmanagerd or simulator, or a crashed compiler or tool"`
	Notes        []string              `json:"notes,omitempty" jsonschema:"disagreements and caveats"`
	DurationMS   int64                 `json:"duration_ms" jsonschema:"wall time"`
	catalog.Captured
}

// BuildOutput is the result of xcode_test: ActionOutput and what only a
// test run fills, which xcode_build's and xcode_clean's tools/list
// entries would otherwise repeat.
type BuildOutput struct {
	ActionOutput
	Tests        *wire.TestReport  `json:"tests,omitempty" jsonschema:"the tests as the log showed them, with crash indicators"`
	XCResult     *wire.TestSummary `json:"xcresult,omitempty" jsonschema:"the result bundle's summary: authoritative counts and failure messages"`
	ResultBundle string            `json:"result_bundle,omitempty" jsonschema:"the .xcresult path"`
	Coverage     *wire.Coverage    `json:"coverage,omitempty" jsonschema:"a coverage run's line coverage"`
}

func (h *handler) build(ctx context.Context, c *catalog.Call, in ActionArgs) (catalog.Result[ActionOutput], error) {
	return actionResult(h.xcodebuild(ctx, c, xcode.ActionBuild, in, nil, ""))
}

func (h *handler) clean(ctx context.Context, c *catalog.Call, in ActionArgs) (catalog.Result[ActionOutput], error) {
	return actionResult(h.xcodebuild(ctx, c, xcode.ActionClean, in, nil, ""))
}

// actionResult narrows a build or clean result to ActionOutput; the
// fields it drops are never filled outside a test run.
func actionResult(r catalog.Result[BuildOutput], err error) (catalog.Result[ActionOutput], error) {
	return catalog.Result[ActionOutput]{Text: r.Text, Outcome: r.Outcome, Images: r.Images, Output: r.Output.ActionOutput}, err
}

func (h *handler) test(ctx context.Context, c *catalog.Call, in testParams) (catalog.Result[BuildOutput], error) {
	return h.xcodebuild(ctx, c, xcode.ActionTest, in.ActionArgs, func(r *xcode.Request) {
		r.OnlyTesting, r.SkipTesting, r.TestPlan, r.TestEnv = in.OnlyTesting, in.SkipTesting, in.TestPlan, in.TestEnv
		r.Coverage = in.Coverage != ""
	}, in.Coverage)
}

// xcodebuild checks and runs one action (tests add their arguments with
// tests), its log captured (xcode.BuildCaptured), and renders the verdict;
// a coverage run's report is kept with it, its files under coverFilter
// listed.
func (h *handler) xcodebuild(ctx context.Context, c *catalog.Call, action xcode.Action, in ActionArgs, tests func(*xcode.Request), coverFilter string) (catalog.Result[BuildOutput], error) {
	b, err := h.request(ctx, action, in, tests)
	b.Limit = c.Limit("timeout_s", in.TimeoutS > 0, h.svc.Config.RunTimeoutKey()).String()
	if err != nil {
		return catalog.Result[BuildOutput]{}, err
	}
	sink, err := apple.LogSink(ctx, c, h.svc)
	if err != nil {
		return catalog.Result[BuildOutput]{}, err
	}
	o, cp, err := xcode.BuildCaptured(ctx, sink, b)
	if err != nil {
		return catalog.Result[BuildOutput]{}, apple.UsageOf(err)
	}
	out := newBuildOutput(o, cp.Kept)
	covText, cov := h.keepCoverage(ctx, cp.Kept.ID, o, coverFilter)
	out.Coverage = cov
	cr := cp.FinishWith(ctx, store.Final{Status: string(o.Status), VerdictLine: o.Line, ExitCode: out.ExitCode}, out)
	out.Tests = out.Tests.Listed() // the stored answer keeps every case
	return render.StoreFailure(catalog.Result[BuildOutput]{Text: renderBuild(out, o, cr.Excerpt, covText), Output: out, Outcome: outcome(o)}, cr), nil
}

// request checks the arguments into the build to run (xcode.CheckBuild).
func (h *handler) request(ctx context.Context, action xcode.Action, in ActionArgs, tests func(*xcode.Request)) (xcode.BuildRequest, error) {
	req, err := in.request(ctx)
	if err != nil {
		return xcode.BuildRequest{}, err
	}
	req.Args, req.Env = in.Args, in.Env
	if tests != nil {
		tests(&req)
	}
	b, err := xcode.NewBuildRequest(action, req, in.Level, in.TimeoutS, h.svc.Config.RunTimeout())
	b.ReportDirs = h.opts.ReportDirs
	if err == nil {
		err = apple.UsageOf(xcode.CheckBuild(ctx, b))
	}
	return b, err
}

func outcome(o *xcode.BuildOutcome) catalog.Outcome {
	if o.Status.OK() {
		return catalog.OK
	}
	return catalog.Failed
}

func newBuildOutput(o *xcode.BuildOutcome, kept capture.Result) BuildOutput {
	res := o.Run
	out := BuildOutput{ActionOutput: ActionOutput{
		Verdict: o.Line, Status: string(o.Status), Command: o.Command.CommandLine(),
		Errors: res.Log.Errors + res.Log.LinkerErrors, Warnings: res.Log.Warnings,
		Diagnostics: wire.DiagnosticsOf(res.Log.Diagnostics), CrashReports: wire.AppCrashReportsOf(o.CrashReports),
		Notes: append(append([]string(nil), res.Notes...), o.Notes...), DurationMS: res.Duration.Milliseconds(),
		Captured: catalog.NewCaptured(kept.ID, kept.Lines, kept.Truncated(o.Run.Log.Lines)),
	}, Tests: wire.TestReportOf(res.Report), XCResult: wire.TestSummaryOf(o.Summary), ResultBundle: o.ResultBundle}
	if len(res.Steps) > 0 && res.Steps[0].Ran {
		r := res.Steps[0].Outcome.Result
		out.ExitCode, out.Signal = r.ExitCode, r.SignalName
	}
	if res.Report != nil {
		out.Notes = append(out.Notes, res.Report.Notes...)
	}
	return out
}
