// Package run is the `run` workflow: run programs crash-aware in the
// foreground or background, and find and read crash evidence.
package run

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/argpath"
	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/hang"
	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/textclip"
	"github.com/triage-dev/triage/internal/toolchain"
	"github.com/triage-dev/triage/internal/workflow/render"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// Workflow returns the run workflow bound to svc.
func Workflow(svc *services.Set) *catalog.Workflow {
	h := &handler{svc: svc}
	return &catalog.Workflow{
		ID:          "run",
		Title:       "Run and crash evidence",
		Description: "Run programs and say truthfully how they ended: exit code, signal, core dump, timeout; find and read crash reports.",
		Tools:       append(h.runTools(), h.evidenceTools()...),
	}
}

// runTools are the tools that run something: build, test, run, process_*.
func (h *handler) runTools() []*catalog.Tool {
	svc, world := h.svc, catalog.Annotations{OpenWorld: true}
	ro := catalog.Annotations{ReadOnly: true, Idempotent: true}
	return []*catalog.Tool{
		catalog.New("build", "Build a project: verdict, errors with file:line, filtered log.",
			world, catalog.WithDefaults(svc.Defaults, defaults.Requirements{AllOf: []string{"project_dir"}}, h.build)).
			Unlisted("", "build_command"). // filled from session defaults; command is its explicit twin
			Unlisted("", "clean").         // swift only, rarely wanted: not worth its tokens in every tools/list
			// cmake, meson and autotools only: the ~30 tokens it costs in every
			// tools/list are over the budget (internal/server/budget_test.go).
			Unlisted("", "configure_args").
			Unlisted("", "stall_s"). // as for run
			Help("timeout_s", h.runLimitHelp()),
		catalog.New("test", "Build and run a project's tests: verdict, failed and crashed tests (message, file:line), counts, filtered log.",
			world, catalog.WithDefaults(svc.Defaults, defaults.Requirements{AllOf: []string{"project_dir"}}, h.test)).
			Unlisted("", "test_command").
			Unlisted("", "memcheck").       // as for run
			Unlisted("", "check").          // as for run
			Unlisted("", "configure_args"). // as for build
			Unlisted("", "stall_s").        // as for run
			// Over the tools/list budget too; shown by test --help.
			Unlisted("", "repeat", "until_fail").
			Unlisted("", "parallel", "cpu", "race"). // the repeat's stress options
			Help("timeout_s", h.runLimitHelp()),
		catalog.New("run", "Run a program to completion: how it ended (verdict), core dump, backtrace, output excerpt.",
			world, catalog.WithDefaults(svc.Defaults, defaults.Requirements{}, h.run)).
			Unlisted("", "memcheck"). // on by default, seldom turned off: not worth its tokens in every tools/list
			Unlisted("", "check").    // as memcheck: over the tools/list budget; shown by run --help
			Unlisted("", "stall_s").  // as memcheck: a default that is seldom changed
			// As check: shown by run --help.
			Unlisted("", "repeat", "until_fail", "parallel").
			Help("timeout_s", h.runLimitHelp()),
		catalog.New("process_start", "Start a program in the background; read it with process_output, end it with process_stop.",
			world, catalog.WithDefaults(svc.Defaults, defaults.Requirements{}, h.start)).
			Unlisted("", "check"). // as run's: over the tools/list budget; shown by process_start --help
			Help("check", "its first report (kind, access, allocation and free sites) is in process_output's and process_stop's answer once the program ends, and fails the verdict even after exit 0").
			Help("timeout_s", "seconds; default none: it runs until process_stop"),
		catalog.New("process_list", "List background processes and how each ended.", ro, h.list),
		catalog.New("process_output", "Read a background process's output from a line cursor.", ro, h.output),
		catalog.New("process_stop", "Stop a background process (SIGTERM, then SIGKILL) and return its verdict.",
			catalog.Annotations{Destructive: true, Idempotent: true}, h.stop),
	}
}

// evidenceTools are the tools that find and read crash artifacts.
func (h *handler) evidenceTools() []*catalog.Tool {
	ro := catalog.Annotations{ReadOnly: true, Idempotent: true}
	return []*catalog.Tool{
		catalog.New("crash_report_list", "List crash artifacts: core files, systemd-coredump and apport entries, macOS crash reports.", ro, h.crashList),
		catalog.New("crash_report_show", "Summarise a core file or .ips/.crash report: signal, exception, crashed thread's frames.", ro, h.crashShow).
			Unlisted("", "project_dir"), // only where relative paths resolve; rarely given
	}
}

type handler struct{ svc *services.Set }

// processParams describe a program to run.
type processParams struct {
	Program    string            `json:"program" jsonschema:"path or name in PATH"`
	Args       []string          `json:"args,omitempty" jsonschema:"argv (no shell)"`
	Cwd        string            `json:"cwd,omitempty" jsonschema:"default: project_dir"`
	ProjectDir string            `json:"project_dir,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	Unset      []string          `json:"unset,omitempty"`
	Stdin      string            `json:"stdin,omitempty"`
	TimeoutS   duration.Seconds  `json:"timeout_s,omitempty"`
	CoreDumps  *bool             `json:"core_dumps,omitempty" jsonschema:"default true"`
	SSHHost    string            `json:"ssh_host,omitempty" jsonschema:"ssh host to run on (its paths)"`
}

// runParams are run's arguments: a program, whether a crash that looks
// like memory corruption is rerun under valgrind memcheck, the checker it
// runs under from its start (capture.Check), and how long
// it may make no progress before it ends as hung (stall.go).
type runParams struct {
	processParams
	Memcheck *bool             `json:"memcheck,omitempty" jsonschema:"default true: rerun a crash that looks like memory corruption under valgrind memcheck"`
	Check    string            `json:"check,omitempty" jsonschema:"run under a checker from the start: memory (valgrind memcheck), leaks (memcheck, definite leaks are failures), thread (valgrind helgrind: data races, lock order); undefined needs a sanitizer build (test)"`
	StallS   *duration.Seconds `json:"stall_s,omitempty" jsonschema:"default 30: end as HUNG after this many seconds with no output, no CPU time and every thread blocked; 0 turns it off"`
	// Repeat and UntilFail run it again and again (runrepeat.go).
	Repeat    int  `json:"repeat,omitempty" jsonschema:"run it this many times (at most 1000): FLAKY with each distinct failure, or succeeded or failed N of N; timeout_s bounds the whole"`
	UntilFail bool `json:"until_fail,omitempty" jsonschema:"with repeat: stop at the first run that fails"`
	Parallel  int  `json:"parallel,omitempty" jsonschema:"with repeat: run this many copies at once"`
}

// request is the run the parameters describe, on ssh_host when given.
func (p processParams) request(ctx context.Context, svc *services.Set, foreground bool) (capture.Request, error) {
	if p.Program == "" {
		return capture.Request{}, fault.Usagef("program is required: a path such as ./a.out, or a name in PATH")
	}
	def := time.Duration(0) // a background process runs until stopped
	if foreground {
		def = svc.Config.RunTimeout()
	}
	timeout, err := p.TimeoutS.Timeout(def, 0)
	if err != nil {
		return capture.Request{}, err
	}
	req := capture.Request{Spec: p.spec(timeout), Program: p.program(), ProjectDir: p.projectDir()}
	if p.SSHHost != "" {
		req.Remote, err = svc.Remote().Conn(ctx, p.SSHHost)
	}
	return req, err
}

// spec is the process to start. Relative paths are the program's: cwd is
// taken in project_dir, and the directory is absolute so that whatever
// names it works anywhere. A host's paths are its own: passed on as given.
func (p processParams) spec(timeout time.Duration) spawn.Spec {
	s := spawn.Spec{Argv: append([]string{p.Program}, p.Args...), Dir: p.dir(), Env: p.Env, Unset: p.Unset,
		Timeout: timeout, CoreDumps: p.CoreDumps == nil || *p.CoreDumps}
	if p.Stdin != "" {
		s.Stdin = strings.NewReader(p.Stdin)
	}
	return s
}

func (p processParams) dir() string {
	if p.SSHHost != "" {
		return remote.Dir(p.Cwd, p.ProjectDir)
	}
	return argpath.Base(p.Cwd, p.ProjectDir)
}

// program is the program as run, absolute when it is a path (hints and
// backtraces name it from anywhere); a bare name is left for PATH.
func (p processParams) program() string {
	if p.SSHHost != "" {
		return p.Program
	}
	return argpath.Program(p.Program, p.Cwd, p.ProjectDir)
}

// runCall is the call's own arguments, for the hints that rerun it.
func (p processParams) runCall() toolchain.RunCall {
	c := toolchain.RunCall{Program: p.program(), Args: p.Args, ProjectDir: p.projectDir(), Env: p.Env}
	if p.Cwd != "" || p.ProjectDir != "" {
		c.Dir = argpath.Base(p.Cwd, p.ProjectDir) // as it ran
	}
	return c
}

// projectDir is project_dir made absolute, "" when not given.
func (p processParams) projectDir() string {
	if p.SSHHost != "" {
		return p.ProjectDir
	}
	return argpath.Resolve(p.ProjectDir, "", "")
}

// RunOutput is the result of run, process_stop and a finished process.
type RunOutput struct {
	Verdict      wire.Verdict    `json:"verdict" jsonschema:"how the program ended: status, crash type, signal, exit code, indicators, evidence, hints"`
	Argv         []string        `json:"argv" jsonschema:"what ran"`
	Pid          int             `json:"pid" jsonschema:"process id"`
	DurationMS   int64           `json:"duration_ms" jsonschema:"wall time"`
	PeakRSSBytes int64           `json:"peak_rss_bytes,omitempty" jsonschema:"peak resident memory"`
	TimedOut     bool            `json:"timed_out,omitempty" jsonschema:"the time limit ended it"`
	Cancelled    bool            `json:"cancelled,omitempty" jsonschema:"the call was cancelled or the process stopped"`
	Core         string          `json:"core,omitempty" jsonschema:"core dump path"`
	Backtrace    []wire.Frame    `json:"backtrace,omitempty" jsonschema:"crashing thread's frames from the core"`
	CrashSite    *wire.CrashSite `json:"crash_site,omitempty" jsonschema:"source, arguments and locals of the first frame in the project's code; a memory fault's address"`
	Artifacts    []wire.Artifact `json:"artifacts,omitempty" jsonschema:"crash artifacts found"`
	Hang         *wire.Hang      `json:"hang,omitempty" jsonschema:"stacks taken before a hung program was killed, and where it was stuck"`
	catalog.Captured
}

func (h *handler) run(ctx context.Context, c *catalog.Call, in runParams) (catalog.Result[RunOutput], error) {
	req, err := in.request(ctx, h.svc, true)
	if err == nil {
		req.Stall, err = stallLimit(in.StallS)
		req.Limit = limitOf(c, in.TimeoutS, h.svc.Config)
	}
	var check capture.Check
	if err == nil {
		check, err = capture.ParseCheck(in.Check)
	}
	if err != nil {
		return catalog.Result[RunOutput]{}, err
	}
	st, err := h.svc.Store(ctx)
	if err != nil {
		return catalog.Result[RunOutput]{}, err
	}
	if in.Repeat != 0 || in.UntilFail || in.Parallel != 0 {
		return h.runRepeated(ctx, c, in, req, check, st) // runrepeat.go
	}
	name := filepath.Base(in.Program)
	var answer catalog.Result[RunOutput]
	cr, err := capture.RunStored(ctx, capture.StoredRun{Tool: "run", Store: st, Budget: h.svc.Config.BudgetBytes() / 2, Request: req,
		Progress: progress(ctx, c, name),
		Answer: func(o *capture.Outcome, cr capture.Result) any {
			o.Verdict.Hints = append(toolchain.RunRebuildHints(o.NoDebugInfo, in.runCall()), o.Verdict.Hints...)
			answer = renderOutcome(o, cr)
			return answer.Output
		},
		Memcheck: capture.Memcheck{Off: in.Memcheck != nil && !*in.Memcheck, Notify: func(msg string) { c.Progress(ctx, 0, 0, msg) }},
		Check:    check})
	if err != nil {
		return answer, err
	}
	return render.StoreFailure(answer, cr), nil
}

// progress reports a run's lines as it goes, and is its stored progress.
func progress(ctx context.Context, c *catalog.Call, name string) func(capture.Progress) string {
	c.Progress(ctx, 0, 0, "running "+name)
	return func(p capture.Progress) string {
		msg := fmt.Sprintf("running %s: %s, %s", name, textclip.Count(p.Lines, "line"), p.Elapsed.Round(time.Second))
		c.Progress(ctx, float64(p.Lines), 0, msg)
		return msg
	}
}

// renderOutcome renders a finished run and its captured output.
func renderOutcome(o *capture.Outcome, cr capture.Result) catalog.Result[RunOutput] {
	r, ex := o.Result, cr.Excerpt
	var stuck *hang.Report
	if o.Hang != nil {
		stuck = o.Hang.Trimmed()
	}
	out := RunOutput{
		Verdict: wire.VerdictOf(o.Verdict), Argv: r.Argv, Pid: r.Pid, DurationMS: r.Duration.Milliseconds(),
		PeakRSSBytes: r.PeakRSS, TimedOut: r.TimedOut, Cancelled: r.Cancelled, Artifacts: wire.ArtifactsOf(o.Artifacts),
		Hang: wire.HangOf(stuck), CrashSite: wire.CrashSiteOf(o.Site), Core: o.Core(),
		Captured: catalog.NewCaptured(cr.ID, ex.TotalLines, ex.Truncated),
	}
	out.Verdict.MemoryError = wire.MemoryErrorOf(o.Memcheck)
	if o.Trace != nil {
		out.Backtrace = wire.FramesOf(o.Trace.Frames)
	}
	outcome := catalog.OK
	if !o.Verdict.OK() {
		outcome = catalog.Failed
	}
	return catalog.Result[RunOutput]{Text: renderText(o, stuck, out.Captured, ex), Output: out, Outcome: outcome}
}
