package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/argpath"
	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/store"
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
	sshHost                    string // the project is on that host
	coverage                   string // a coverage run's file filter; "" for none
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

// plan turns the request into steps, explaining every mistake as a usage
// error.
func (r planRequest) plan() (steps []toolchain.Step, tc string, err error) {
	if r.projectDir == "" {
		return nil, "", fault.Usagef("project_dir is required: pass it, or set it once with %s",
			catalog.NextCall("session_set_defaults", map[string]any{"project_dir": "/path/to/project"}))
	}
	argv, err := argvOf(r.command, r.commandField)
	if argv == nil && err == nil {
		argv, err = argvOf(r.sessionCommand, r.sessionField)
	}
	if err != nil {
		return nil, "", err
	}
	steps, tc, err = toolchain.Plan(r.kind, argv, r.toolchain, r.projectDir, r.options)
	return steps, tc, usage(err)
}

// usage marks a planning error as the caller's to fix: an unknown
// toolchain, a directory that holds no project (the error lists what was
// looked for), an option the toolchain cannot honour, a missing directory.
func usage(err error) error {
	if err == nil {
		return nil
	}
	return fault.Usage(err)
}

// argvOf reads an argv array argument. A string is refused with an
// explanation: triage runs no shell, so "make -j4 check" cannot be split
// safely on the caller's behalf.
func argvOf(v any, field string) ([]string, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		if strings.TrimSpace(x) == "" {
			return nil, nil
		}
		msg := fmt.Sprintf("%s must be an argv array, not a string: triage runs commands without a shell", field)
		if !strings.ContainsAny(x, "\"'\\$`|&;<>()*?{}~") {
			suggestion, _ := json.Marshal(strings.Fields(x))
			msg += fmt.Sprintf(", so pass %s", suggestion)
		} else {
			msg += `; split it into its arguments yourself, e.g. ["sh","-c","..."] if you do need a shell`
		}
		return nil, fault.Usage(errors.New(msg))
	case []string:
		return x, nil
	case []any:
		argv := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fault.Usagef("%s[%d] is %v: every argument must be a string", field, i, e)
			}
			argv[i] = s
		}
		if len(argv) == 0 {
			return nil, nil
		}
		return argv, nil
	}
	return nil, fault.Usagef("%s must be an argv array of strings, such as [\"make\",\"check\"]", field)
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
	Tests       *wire.TestReport  `json:"tests,omitempty" jsonschema:"the parsed test run: every case, totals, the tool's own summary"`
	Crash       *wire.TestCrash   `json:"crash,omitempty" jsonschema:"a test process that crashed: test, signal, core, backtrace"`
	Hang        *wire.Hang        `json:"hang,omitempty" jsonschema:"stacks taken before a timed-out step was killed, and where it was stuck"`
	Notes       []string          `json:"notes,omitempty" jsonschema:"count mismatches and other caveats"`
	Build       string            `json:"build,omitempty" jsonschema:"the configuration and the build directory triage built in (cmake)"`
	Next        []wire.Hint       `json:"next,omitempty" jsonschema:"calls to make next: after a crash without debug info, the ones that rebuild with it and rerun what crashed"`
	DurationMS  int64             `json:"duration_ms" jsonschema:"wall time"`
	SSHHost     string            `json:"ssh_host,omitempty" jsonschema:"the host it ran on"`
	Coverage    *wire.Coverage    `json:"coverage,omitempty" jsonschema:"a coverage run's line coverage"`
	catalog.Captured
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
	var zero catalog.Result[BuildTestOutput]
	if r.sshHost == "" {
		r.projectDir = argpath.Resolve(r.projectDir, "", "") // steps, logs and hints name it from anywhere
	}
	level, timeout, err := r.check(h.svc.Config.RunTimeout())
	if err != nil {
		return zero, err
	}
	conn, err := r.onHost(ctx, h.svc)
	if err != nil {
		return zero, err
	}
	done, err := r.coverageDir()
	if err != nil {
		return zero, err
	}
	defer done()
	steps, tc, err := r.plan()
	if err != nil {
		return zero, err
	}
	st, err := h.svc.Store(ctx)
	if err != nil {
		return zero, err
	}
	cp, err := capture.Open(ctx, st, store.Meta{Tool: c.Tool, Argv: steps[len(steps)-1].Argv, Cwd: r.projectDir},
		capture.Options{Budget: h.svc.Config.BudgetBytes() / 2, Filtered: true})
	if err != nil {
		return zero, err
	}
	keep := st.CoreDir(cp.ID())
	if conn != nil {
		keep = "" // cores on the host stay there
	}
	res, err := pipeline.Run(ctx, pipeline.Request{
		Kind: r.kind, Steps: steps, Level: level, Timeout: timeout,
		Raw: cp, RawID: cp.ID(), Filtered: cp.Filtered(), CoreDirs: []string{r.projectDir}, ProjectDir: r.projectDir, KeepCores: keep,
		Progress: func(p pipeline.Progress) {
			msg := progressMessage(p)
			c.Progress(ctx, float64(p.Lines), 0, msg)
			cp.RecordProgress(msg)
		},
		Remote: conn,
	})
	if err != nil {
		cp.Abort()
		return zero, startError(err)
	}
	cov, wc := keepCoverage(ctx, st, cp.ID(), res, r.coverageFilter())
	answer := r.render(res, tc, cp.Close(), cov, wc)
	cr := cp.FinishWith(ctx, store.Final{Status: string(res.Status), VerdictLine: res.Line, ExitCode: exitCodeOf(res)}, answer.Output)
	return render.StoreFailure(answer, cr), nil
}

// render renders a finished build or test and its captured log.
func (r planRequest) render(res *pipeline.Result, tc string, cr capture.Result, cov *coverage.Summary, wc *wire.Coverage) catalog.Result[BuildTestOutput] {
	out := newBuildTestOutput(res, tc)
	out.SSHHost, out.Coverage = r.sshHost, wc
	if c := res.Crash; c != nil {
		out.Next = wire.HintsOf(toolchain.TestRebuildHints(tc, r.testCall(), c.NoDebugInfo, c.Test))
	}
	if tc == string(toolchain.CMake) {
		out.Build = toolchain.CMakeBuildNote(r.projectDir, r.options)
	}
	out.Captured = catalog.NewCaptured(cr.ID, cr.Lines, cr.Truncated(res.Log.Lines))
	outcome := catalog.OK
	switch {
	case !res.Status.OK():
		outcome = catalog.Failed
	case wc != nil && wc.Error != "":
		outcome = catalog.Error // the coverage asked for could not be had
	}
	return catalog.Result[BuildTestOutput]{Text: renderBuildTest(out, res, cr.Excerpt, cov), Output: out, Outcome: outcome}
}

// testCall is the call's own arguments, for the hints that rerun it.
func (r planRequest) testCall() toolchain.TestCall {
	return toolchain.TestCall{ProjectDir: r.projectDir, Toolchain: r.toolchain, Options: r.options, TimeoutS: float64(r.timeoutS), SSHHost: r.sshHost}
}

func progressMessage(p pipeline.Progress) string {
	msg := fmt.Sprintf("step %d/%d %s: %s", p.Step, p.Steps, p.StepName, p.Command)
	if p.StepName == toolchain.StepTest && p.Passed+p.Failed > 0 {
		msg = fmt.Sprintf("step %d/%d test: %d passed, %d failed so far", p.Step, p.Steps, p.Passed, p.Failed)
	}
	return fmt.Sprintf("%s (%d lines, %s)", msg, p.Lines, p.Elapsed.Round(time.Second))
}

// exitCodeOf is the exit code of the step that decided the run.
func exitCodeOf(res *pipeline.Result) int {
	if res.Failed != nil {
		return res.Failed.Outcome.Result.ExitCode
	}
	return 0
}

func newBuildTestOutput(res *pipeline.Result, tc string) BuildTestOutput {
	out := BuildTestOutput{
		Verdict: res.Line, Status: string(res.Status), Toolchain: tc,
		Errors: res.Log.Errors + res.Log.LinkerErrors, Warnings: res.Log.Warnings,
		Diagnostics: wire.DiagnosticsOf(res.Log.Diagnostics), Crash: wire.TestCrashOf(res.Crash), Hang: wire.HangOf(res.Hang), Notes: res.Notes,
		DurationMS: res.Duration.Milliseconds(),
	}
	for _, s := range res.Steps {
		so := StepOutput{Name: s.Step.Name, Command: s.Step.CommandLine(), Dir: s.Step.Dir, Ran: s.Ran}
		if s.Ran {
			r := s.Outcome.Result
			so.ExitCode, so.Signal, so.DurationMS, so.Verdict = r.ExitCode, r.SignalName, r.Duration.Milliseconds(), s.Outcome.Verdict.Line
		}
		out.Steps = append(out.Steps, so)
	}
	if res.Report != nil {
		out.Tests = wire.TestReportOf(res.Report)
		out.Notes = append(out.Notes, res.Report.Notes...)
	}
	return out
}

// onHost connects to the host the project is on and has planning read the
// project's files there (one snapshot of its directory); nil when the
// project is here. A directory the host lacks is the caller's mistake.
func (r *planRequest) onHost(ctx context.Context, svc *services.Set) (*remote.Conn, error) {
	if r.sshHost == "" {
		return nil, nil
	}
	if r.projectDir == "" {
		return nil, nil // plan explains
	}
	conn, err := svc.Remote().Conn(ctx, r.sshHost)
	if err != nil {
		return nil, err
	}
	snap, err := conn.Snapshot(ctx, r.projectDir, toolchain.PlanFiles())
	var de *remote.DirError
	switch {
	case errors.As(err, &de):
		return nil, fault.Usage(err)
	case err != nil:
		return nil, err
	}
	r.projectDir, r.options.Files = snap.Dir, snap
	return conn, nil
}
