package run

import (
	"context"
	"time"

	"github.com/triage-dev/triage/internal/argpath"
	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/toolchain"
	"github.com/triage-dev/triage/internal/workflow/render"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// planRequest is what build and test have in common once decoded.
type planRequest struct {
	kind                       string // toolchain.StepBuild or StepTest
	projectDir, toolchain      string
	command, sessionCommand    any // argv arrays, as decoded JSON
	commandField, sessionField string
	options                    toolchain.Options
	level                      string
	timeoutS                   duration.Seconds
	sshHost                    string            // the project is on that host
	coverage                   string            // a coverage run's file filter; "" for none
	memcheckOff                bool              // test's memcheck: false
	stallS                     *duration.Seconds // stall_s: nil for the default (stall.go)
	repeat                     pipeline.Repeat   // test's repeat and until_fail (repeat.go)
}

// check reads the log level and the time limit (def when not given).
func (r planRequest) check(def time.Duration) (logfilter.Level, time.Duration, error) {
	level, err := logfilter.ParseLevel(r.level)
	if err != nil {
		return level, 0, fault.Usagef("level %q: use minimal, standard or verbose", r.level)
	}
	timeout, err := r.timeoutS.Timeout(def, 0)
	return level, timeout, err
}

// setProjectDir is the call that sets a session's project_dir.
var setProjectDir = catalog.NextCall("session_set_defaults", map[string]any{"project_dir": "/path/to/project"})

// argv is the command the call names, its own or the session's; nil to
// plan from the project, which is required.
func (r planRequest) argv() ([]string, error) {
	if r.projectDir == "" {
		return nil, fault.Usagef("project_dir is required: pass it, or set it once with %s", setProjectDir)
	}
	argv, err := toolchain.Argv(r.command, r.commandField)
	if argv == nil && err == nil {
		argv, err = toolchain.Argv(r.sessionCommand, r.sessionField)
	}
	return argv, err
}

// BuildTestOutput is the result of build and test.
type BuildTestOutput struct {
	Verdict     string            `json:"verdict" jsonschema:"the verdict line"`
	Status      string            `json:"status" jsonschema:"succeeded, failed, crashed, timed_out, interrupted, no_tests or silent_failure"`
	Toolchain   string            `json:"toolchain" jsonschema:"the toolchain used, or command"`
	Steps       []StepOutput      `json:"steps" jsonschema:"the commands run, in order"`
	Errors      int               `json:"errors" jsonschema:"compiler and linker errors"`
	Warnings    int               `json:"warnings" jsonschema:"warnings"`
	Diagnostics []wire.Diagnostic `json:"diagnostics,omitempty" jsonschema:"every error, warning and failure line (bounded), with file and line"`
	Tests       *wire.TestReport  `json:"tests,omitempty" jsonschema:"the parsed test run: every case but the passed beyond 20, totals, the tool's own summary"`
	Crash       *TestCrashOutput  `json:"crash,omitempty" jsonschema:"a test process that crashed: test, signal, core, backtrace, memory_error"`
	Hang        *wire.Hang        `json:"hang,omitempty" jsonschema:"stacks taken before a timed-out step was killed, and where it was stuck"`
	Notes       []string          `json:"notes,omitempty" jsonschema:"count mismatches and other caveats"`
	Build       string            `json:"build,omitempty" jsonschema:"the configuration and the build directory triage built in (cmake, meson, autotools)"`
	Next        []wire.Hint       `json:"next,omitempty" jsonschema:"calls to make next: after a crash without debug info, the ones that rebuild with it and rerun what crashed"`
	DurationMS  int64             `json:"duration_ms" jsonschema:"wall time"`
	SSHHost     string            `json:"ssh_host,omitempty" jsonschema:"the host it ran on"`
	Coverage    *wire.Coverage    `json:"coverage,omitempty" jsonschema:"a coverage run's line coverage"`
	catalog.Captured
}

// TestCrashOutput is a test process that crashed and, when its crash
// looked like memory corruption, its rerun alone under valgrind memcheck
// (in the crash, not beside it: tools/list lists the answer's top-level
// fields only, and every one costs tokens).
type TestCrashOutput struct {
	*wire.TestCrash
	MemoryError *wire.MemoryError `json:"memory_error,omitempty" jsonschema:"the crashed test rerun alone under valgrind memcheck: its first memory error, or why none"`
}

// testCrashOf converts a test crash and its rerun, nil for nil.
func testCrashOf(c *pipeline.TestCrash) *TestCrashOutput {
	if c == nil {
		return nil
	}
	return &TestCrashOutput{TestCrash: wire.TestCrashOf(c), MemoryError: wire.MemoryErrorOf(c.Memcheck)}
}

// StepOutput is one command of a build or test.
type StepOutput struct {
	Name       string `json:"name" jsonschema:"configure, clean, build or test"`
	Command    string `json:"command" jsonschema:"the command line (run as an argv, without a shell)"`
	Dir        string `json:"dir" jsonschema:"working directory"`
	Ran        bool   `json:"ran" jsonschema:"false when an earlier step failed"`
	ExitCode   int    `json:"exit_code" jsonschema:"exit status, -1 when killed by a signal"`
	Signal     string `json:"signal,omitempty" jsonschema:"the signal that ended it"`
	DurationMS int64  `json:"duration_ms" jsonschema:"wall time"`
	Verdict    string `json:"verdict,omitempty" jsonschema:"how the process ended"`
}

func (h *handler) buildOrTest(ctx context.Context, c *catalog.Call, r planRequest) (catalog.Result[BuildTestOutput], error) {
	call, err := r.call(ctx, h.svc)
	if err != nil {
		return catalog.Result[BuildTestOutput]{}, err
	}
	call.Tool, call.Budget = c.Tool, h.svc.Config.BudgetBytes()/2
	call.Limit = limitOf(c, r.timeoutS, h.svc.Config)
	call.Progress = func(lines int64, msg string) { c.Progress(ctx, float64(lines), 0, msg) }
	var answer catalog.Result[BuildTestOutput]
	call.Answer = func(d *pipeline.Called) any {
		answer = r.render(d)
		return answer.Output
	}
	cr, err := pipeline.BuildOrTest(ctx, call)
	if err != nil {
		return answer, err
	}
	answer.Output.Tests = answer.Output.Tests.Listed() // the stored answer keeps every case
	return render.StoreFailure(answer, cr), nil
}

// call checks the request and makes it the domain's call: its plan's
// inputs, and the connection to the host the project is on.
func (r planRequest) call(ctx context.Context, svc *services.Set) (pipeline.Call, error) {
	level, timeout, err := r.check(svc.Config.RunTimeout())
	if err != nil {
		return pipeline.Call{}, err
	}
	argv, err := r.argv()
	if err != nil {
		return pipeline.Call{}, err
	}
	stall, err := stallLimit(r.stallS)
	if err != nil {
		return pipeline.Call{}, err
	}
	call := pipeline.Call{Stall: stall, Kind: r.kind, Toolchain: r.toolchain, Argv: argv, ProjectDir: r.projectDir,
		Options: r.options, Level: level, Timeout: timeout, Coverage: r.coverage, Memcheck: capture.Memcheck{Off: r.memcheckOff}}
	if r.sshHost == "" {
		call.ProjectDir = argpath.Resolve(r.projectDir, "", "") // steps, logs and hints name it from anywhere
	} else if call.Remote, err = svc.Remote().Conn(ctx, r.sshHost); err != nil {
		return call, err
	}
	call.Rooms = svc.WorkRooms()
	call.Store, err = svc.Store(ctx)
	return call, err
}

// render renders a finished build or test and its captured log.
func (r planRequest) render(d *pipeline.Called) catalog.Result[BuildTestOutput] {
	res, tc, cr := d.Result, d.Toolchain, d.Output
	r.projectDir, r.options = d.ProjectDir, d.Options
	out := newBuildTestOutput(res, tc)
	out.SSHHost, out.Coverage = r.sshHost, coverageOf(d)
	if c := res.Crash; c != nil {
		out.Next = wire.HintsOf(toolchain.TestRebuildHints(tc, r.testCall(), c.NoDebugInfo, c.Test))
	}
	out.Next = append(out.Next, r.repeatHint(res, tc)...) // repeat.go
	out.Build = toolchain.BuildNote(tc, r.projectDir, r.options)
	out.Captured = catalog.NewCaptured(cr.ID, cr.Lines, cr.Truncated(res.Log.Lines))
	outcome := catalog.OK
	switch {
	case !res.Status.OK():
		outcome = catalog.Failed
	case out.Coverage != nil && out.Coverage.Error != "":
		outcome = catalog.Error // the coverage asked for could not be had
	}
	return catalog.Result[BuildTestOutput]{Text: renderBuildTest(out, res, cr.Excerpt, d.Coverage), Output: out, Outcome: outcome}
}

// testCall is the call's own arguments, for the hints that rerun it.
func (r planRequest) testCall() toolchain.TestCall {
	return toolchain.TestCall{ProjectDir: r.projectDir, Toolchain: r.toolchain, Options: r.options, TimeoutS: float64(r.timeoutS), SSHHost: r.sshHost}
}

func newBuildTestOutput(res *pipeline.Result, tc string) BuildTestOutput {
	out := BuildTestOutput{
		Verdict: res.Line, Status: string(res.Status), Toolchain: tc,
		Errors: res.Log.Errors + res.Log.LinkerErrors, Warnings: res.Log.Warnings,
		Diagnostics: wire.DiagnosticsOf(res.Log.Diagnostics), Crash: testCrashOf(res.Crash), Hang: wire.HangOf(res.Hang), Notes: res.Notes,
		DurationMS: res.Duration.Milliseconds(),
	}
	for _, s := range res.Steps {
		out.Steps = append(out.Steps, stepOf(s))
	}
	if res.Report != nil {
		out.Tests = wire.TestReportOf(res.Report)
		out.Notes = append(out.Notes, res.Report.Notes...)
	}
	return out
}

func stepOf(s pipeline.StepResult) StepOutput {
	so := StepOutput{Name: s.Step.Name, Command: s.Step.CommandLine(), Dir: s.Step.Dir, Ran: s.Ran}
	if s.Ran {
		r := s.Outcome.Result
		so.ExitCode, so.Signal, so.DurationMS, so.Verdict = r.ExitCode, r.SignalName, r.Duration.Milliseconds(), s.Outcome.Verdict.Line
	}
	return so
}
