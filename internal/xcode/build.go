package xcode

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/toolchain"
)

// BuildRequest is one xcodebuild action to run.
type BuildRequest struct {
	Action  Action
	Request Request
	Level   logfilter.Level
	Timeout time.Duration
	// Limit names the limit Timeout is (pipeline.Request.Limit).
	Limit string
	// Raw, RawID, Filtered and Progress are as in pipeline.Request.
	Raw      io.Writer
	RawID    string
	Filtered io.Writer
	Progress func(pipeline.Progress)
	// ReportDirs are passed to Correlate; Apps are the process names of
	// the apps the run involves (the scheme's name is always one).
	ReportDirs []string
	Apps       []string
}

// BuildOutcome is how an xcodebuild action went. Status and Line are the
// final verdict: pipeline's, from the exit status and the log, revised by
// the result bundle and by crash reports.
type BuildOutcome struct {
	Run    *pipeline.Result
	Status pipeline.Status
	Line   string
	// Command is the xcodebuild command that ran.
	Command toolchain.Step
	// Summary is the result bundle's test summary (test actions), nil when
	// there was no bundle or xcresulttool could not read it; Cases are its
	// test cases (Xcode 16+ only).
	Summary      *TestSummary
	Cases        []testreport.Case
	ResultBundle string
	CrashReports []CrashReport
	Notes        []string
	// Coverage is a coverage run's report (xccov's, from the result
	// bundle); CoverageError says why a coverage run has none.
	Coverage      *coverage.Report
	CoverageError string
}

// Build runs the action. The error is non-nil only when the request is
// invalid (an *RequestError, or an error wrapping
// ErrDestination) or xcodebuild could not be started.
func Build(ctx context.Context, req BuildRequest) (*BuildOutcome, error) {
	r := req.Request
	var bundleDir string
	if req.Action == ActionTest || req.Action == ActionTestWithoutBuilding {
		dir, err := os.MkdirTemp("", "triage-xcresult-")
		if err != nil {
			return nil, fmt.Errorf("creating the result bundle directory: %w", err)
		}
		bundleDir = dir
		r.ResultBundlePath = filepath.Join(dir, "Test.xcresult")
	}
	cmd, err := BuildCommand(req.Action, r)
	if err != nil {
		if bundleDir != "" {
			os.RemoveAll(bundleDir)
		}
		return nil, err
	}
	step := toolchain.Step{Name: toolchain.StepBuild, Argv: cmd.Argv, Dir: containerDir(r), Env: cmd.Env}
	kind := pipeline.KindBuild
	if bundleDir != "" {
		step.Name, step.Format, kind = toolchain.StepTest, testreport.FormatXCTest, pipeline.KindTest
		step.Filter = selection(r)
		// The tests run in the test runner (in a simulator, on a device),
		// not in xcodebuild, whose stacks would only show it waiting; the
		// verdict names the test that never finished, from the log.
		step.NoHangStacks = true
	}
	start := time.Now()
	res, err := pipeline.Run(ctx, pipeline.Request{
		Kind: kind, Steps: []toolchain.Step{step}, Level: req.Level, Timeout: req.Timeout, Limit: req.Limit,
		Raw: req.Raw, RawID: req.RawID, Filtered: req.Filtered, Progress: req.Progress,
		CoreDirs: []string{step.Dir},
	})
	if err != nil {
		if bundleDir != "" {
			os.RemoveAll(bundleDir)
		}
		return nil, err
	}
	o := &BuildOutcome{Run: res, Status: res.Status, Line: res.Line, Command: step}
	o.refine()
	if bundleDir != "" {
		o.readBundle(ctx, r.ResultBundlePath, bundleDir)
		o.readCoverage(ctx, req.Action, r, step.Dir)
	}
	if !o.Status.OK() {
		apps := append([]string{r.Scheme}, req.Apps...)
		if o.Summary != nil {
			for _, f := range o.Summary.Failures {
				if f.Target != "" {
					apps = append(apps, f.Target)
				}
			}
		}
		o.CrashReports = Correlate(ctx, req.ReportDirs, start, apps)
		o.applyCrashReports()
	}
	return o, nil
}

// containerDir is where xcodebuild runs: the directory of the workspace
// or project.
func containerDir(r Request) string {
	p := r.Workspace
	if p == "" {
		p = r.Project
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Dir(p)
	}
	return filepath.Dir(abs)
}

func selection(r Request) string {
	if len(r.OnlyTesting) == 0 {
		return ""
	}
	return fmt.Sprintf("-only-testing %v", r.OnlyTesting)
}

// applyCrashReports makes a crash report of the app or the test machinery
// part of the verdict: a run that failed, or even one whose summary looked
// clean, while the app or the runner crashed, crashed.
func (o *BuildOutcome) applyCrashReports() {
	if len(o.CrashReports) == 0 {
		return
	}
	c := o.CrashReports[0]
	what := c.Process
	if c.Exception != "" {
		what += " " + c.Exception
	}
	switch o.Status {
	case pipeline.Crashed:
		o.Line += fmt.Sprintf(" — crash report: %s (%s)", what, c.Role)
	case pipeline.Failed, pipeline.SilentFailure, pipeline.NoTests:
		o.Status = pipeline.Crashed
		o.Line = fmt.Sprintf("CRASHED: %s %s (crash report) — %s", c.Role, what, o.Line)
	default: // timed out or interrupted: the stop is ours; the report is evidence
		o.Line += fmt.Sprintf(" — crash report: %s (%s)", what, c.Role)
	}
}
