// Package debug is the `debug` workflow: launch, attach to or open a core
// under a debugger (DAP adapters or the LLDB command line), set breakpoints,
// control execution, and read stacks, variables and expressions. Sessions live
// in the services' debugger.Manager and survive between calls; every tool
// takes an optional session_id and defaults to the current session.
package debug

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/interactive"
	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// Workflow returns the debug workflow bound to svc.
func Workflow(svc *services.Set) *catalog.Workflow {
	h := &handler{svc: svc}
	ro := catalog.Annotations{ReadOnly: true}
	ctl := catalog.Annotations{OpenWorld: true}
	return &catalog.Workflow{
		ID:          "debug",
		Title:       "Debugging",
		Description: "Launch, attach to or open a core under lldb-dap/lldb-vscode, dlv, gdb or the lldb command line; breakpoints, stepping, stack, variables.",
		Tools: []*catalog.Tool{
			catalog.New("debug_attach", "Debug a new program, a pid, or a core.",
				ctl, catalog.WithDefaults(svc.Defaults, defaults.Requirements{}, h.attach)).
				Unlisted("", "debugger_backend"), // filled from session defaults; backend is its explicit twin
			attachSim(svc),
			catalog.New("debug_breakpoint_add", "Break at file:line or a function, optionally conditional.", ctl, h.breakpointAdd).
				Unlisted("observe", "log_message"),
			catalog.New("debug_breakpoint_remove", "Remove a breakpoint by id.", catalog.Annotations{Idempotent: true}, h.breakpointRemove),
			catalog.New("debug_continue", "Resume and wait for the next stop.", ctl, h.resume),
			catalog.New("debug_step", "Step over, into or out of a line.", ctl, h.step),
			catalog.New("debug_pause", "Pause the target.", ctl, h.pause),
			catalog.New("debug_stack", "Backtrace (default: the stopped thread).", ro, h.stack),
			catalog.New("debug_variables", "A frame's locals and arguments, or another scope.", ro, h.variables),
			catalog.New("debug_evaluate", "Evaluate an expression in a frame.", ctl, h.evaluate),
			catalog.New("debug_memory", "A frame's memory, registers or disassembly.", ro, h.memory),
			catalog.New("debug_command", "A raw lldb or gdb command, per backend.", ctl, h.command).
				Help("timeout_s", fmt.Sprintf("seconds per command; default %g (the config's timeouts.command), at most %g", svc.Config.CommandTimeout().Seconds(), duration.CommandMax.Seconds())),
			catalog.New("debug_detach", "End a session (a launched target is killed).",
				catalog.Annotations{Destructive: true, Idempotent: true}, h.detach),
		},
	}
}

type handler struct{ svc *services.Set }

// sessionParam is embedded by every tool that works on a session.
type sessionParam struct {
	SessionID string `json:"session_id,omitempty"`
}

// backend is session id's backend and its id, or why there is none.
func (h *handler) backend(ctx context.Context, id string) (debugger.Backend, string, error) {
	b, info, err := h.svc.Debugger().Session(ctx, id)
	return b, info.ID, describe(err)
}

// describe turns the debugger's sentinel errors into what the caller should do.
func describe(err error) error {
	switch {
	case errors.Is(err, debugger.ErrNoSession):
		return fault.Usagef("no debug session: start one with debug_attach")
	case errors.Is(err, debugger.ErrUnknownSession):
		return fault.NotFoundf("%w; debug_attach starts one", err)
	case errors.Is(err, debugger.ErrSessionDead):
		return fmt.Errorf("%w; debug_detach this session and debug_attach again", err)
	case errors.Is(err, debugger.ErrRunning):
		return fault.Usagef("the target is running: debug_pause it, or debug_continue with wait_s")
	case errors.Is(err, debugger.ErrUnknownBreakpoint), errors.Is(err, debugger.ErrUnknownBackend),
		errors.Is(err, debugger.ErrNotStarted), errors.Is(err, debugger.ErrTargetExited),
		errors.Is(err, interactive.ErrReadsInput):
		return fault.Usage(err)
	}
	return err
}

// StopOutput describes a session's state after a call.
type StopOutput struct {
	SessionID   string            `json:"session_id" jsonschema:"the session"`
	Backend     string            `json:"backend,omitempty" jsonschema:"dap or lldb"`
	State       wire.DebugState   `json:"state" jsonschema:"status and last stop"`
	Frames      []wire.DebugFrame `json:"frames,omitempty" jsonschema:"top frames of the stopped thread"`
	Breakpoints []wire.Breakpoint `json:"breakpoints,omitempty" jsonschema:"breakpoints of the session"`
	CrashSite   *wire.CrashSite   `json:"crash_site,omitempty" jsonschema:"stopped by a crash: source, arguments and locals of the first frame in the program's code; the fault address"`
}

type attachParams struct {
	Pid             int               `json:"pid,omitempty"`
	Program         string            `json:"program,omitempty" jsonschema:"to launch, or the core's executable"`
	Args            []string          `json:"args,omitempty"`
	Core            string            `json:"core,omitempty"`
	StopOnEntry     bool              `json:"stop_on_entry,omitempty"`
	Breakpoints     []string          `json:"breakpoints,omitempty" jsonschema:"functions or file:line"`
	Backend         string            `json:"backend,omitempty" jsonschema:"dap (default) or lldb"`
	DebuggerBackend string            `json:"debugger_backend,omitempty"`
	Cwd             string            `json:"cwd,omitempty" jsonschema:"default: project_dir"`
	ProjectDir      string            `json:"project_dir,omitempty"`
	Env             map[string]string `json:"env,omitempty"`
	WaitS           duration.Seconds  `json:"wait_s,omitempty" jsonschema:"for the first stop (default 30)"`
	SSHHost         string            `json:"ssh_host,omitempty" jsonschema:"debug there; paths are its own"`
}

func (h *handler) attach(ctx context.Context, c *catalog.Call, in attachParams) (catalog.Result[StopOutput], error) {
	wait, err := in.WaitS.Duration("wait_s", 30*time.Second, 0)
	if err != nil {
		return catalog.Result[StopOutput]{}, err
	}
	if err := remote.CheckHost(in.SSHHost); in.SSHHost != "" && err != nil {
		return catalog.Result[StopOutput]{}, fault.Usage(err)
	}
	spec := debugger.OpenSpec{Pid: in.Pid, Program: in.Program, Args: in.Args, Core: in.Core, StopOnEntry: in.StopOnEntry,
		Breakpoints: in.Breakpoints, Cwd: in.Cwd, ProjectDir: in.ProjectDir, Env: in.Env, Wait: wait, SSHHost: in.SSHHost, CheckCore: checkCore}
	if err := spec.Check(); err != nil {
		return catalog.Result[StopOutput]{}, err
	}
	backend := debugger.ResolveBackend(in.Backend, in.DebuggerBackend, h.svc.Config.Debugger.Backend)
	b, info, st, err := h.svc.Debugger().Open(ctx, backend, spec)
	if err != nil {
		return catalog.Result[StopOutput]{}, err
	}
	note := ""
	waited := in.Pid == 0 && in.Core == "" && (len(in.Breakpoints) > 0 || in.StopOnEntry) // a launch waits for its first stop (debugger.OpenSpec)
	if waited && st.Status == debugger.StatusRunning {
		note = fmt.Sprintf("no stop within %gs (%s); the target is still running", wait.Seconds(), c.Limit("wait_s", in.WaitS > 0, ""))
	}
	return h.stopResult(ctx, b, info.ID, st, note)
}

// checkCore checks a core's notes name its program and returns the signal
// they record.
func checkCore(core, program string) (string, error) {
	ci, err := coredump.OpenCore(core)
	if err != nil {
		return "", fault.Usagef("core %s: %w", core, err)
	}
	if err := ci.MatchExe(program); err != nil {
		return "", fault.Usagef("%w (the core's program: %s)", err, ci.ExePath)
	}
	return ci.SignalName, nil
}

type detachParams struct {
	sessionParam
}

// DetachOutput reports an ended session.
type DetachOutput struct {
	SessionID string `json:"session_id" jsonschema:"the ended session"`
}

func (h *handler) detach(ctx context.Context, c *catalog.Call, in detachParams) (catalog.Result[DetachOutput], error) {
	info, err := h.svc.Debugger().Info(ctx, in.SessionID)
	if err != nil {
		return catalog.Result[DetachOutput]{}, describe(err)
	}
	if err := h.svc.Debugger().Detach(ctx, info.ID); err != nil && !errors.Is(err, debugger.ErrSessionDead) {
		return catalog.Result[DetachOutput]{}, err
	}
	return catalog.Result[DetachOutput]{Text: detachedText(info.ID, info.Target), Output: DetachOutput{SessionID: info.ID}}, nil
}

// detachedText is debug_detach's verdict: the session and, when known, what
// it debugged.
func detachedText(id, target string) string {
	if target == "" {
		return "DETACHED " + id + "\n"
	}
	return fmt.Sprintf("DETACHED %s (%s)\n", id, target)
}
