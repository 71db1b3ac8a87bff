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
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/argpath"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/interactive"
	"github.com/triage-dev/triage/internal/redact"
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
			catalog.New("debug_command", "A raw lldb or gdb command, per backend.", ctl, h.command),
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

func (h *handler) backend(ctx context.Context, id string) (debugger.Backend, string, error) {
	m := h.svc.Debugger()
	b, err := m.Backend(ctx, id)
	if errors.Is(err, debugger.ErrUnknownSession) {
		var ids []string
		for _, s := range m.List(ctx) {
			ids = append(ids, s.ID)
		}
		if len(ids) > 0 {
			err = fmt.Errorf("%w (open: %s)", err, strings.Join(ids, ", "))
		}
	}
	if err != nil {
		return nil, "", describe(err)
	}
	info, _ := m.Info(ctx, id)
	return b, info.ID, nil
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
	wait, err := in.check()
	if err != nil {
		return catalog.Result[StopOutput]{}, err
	}
	backend := debugger.ResolveBackend(in.Backend, in.DebuggerBackend, h.svc.Config.Debugger.Backend)
	var info debugger.SessionInfo
	signal := "" // a core's signal, from its notes
	switch {
	case in.Pid != 0:
		info, err = h.svc.Debugger().Attach(ctx, backend, debugger.AttachSpec{Pid: in.Pid, Program: in.Program, SSHHost: in.SSHHost})
		err = attachError(err)
	case in.Core != "":
		info, signal, err = h.loadCore(ctx, backend, in)
	default:
		info, err = h.launch(ctx, backend, in, wait)
	}
	if err != nil {
		return catalog.Result[StopOutput]{}, err
	}
	b, err := h.svc.Debugger().Backend(ctx, info.ID)
	if err != nil {
		return catalog.Result[StopOutput]{}, describe(err)
	}
	return h.stopResult(ctx, b, info.ID, withCoreSignal(b.State(), signal), "")
}

// check validates the arguments and resolves the paths in them as the
// program would be run (cwd taken in project_dir, made absolute for the
// debugger and what names them); a remote session's paths are the host's
// and are left to it (checkRemote). It returns how long to wait for a stop.
func (in *attachParams) check() (time.Duration, error) {
	wait, err := in.WaitS.Duration("wait_s", 30*time.Second, 0)
	switch {
	case err != nil:
		return 0, err
	case (in.Pid != 0 && in.Core != "") || (in.Pid == 0 && in.Core == "" && in.Program == ""):
		return 0, fault.Usagef("give exactly one of: pid; program (+ args) to launch; core + program")
	case in.Core != "" && in.Program == "":
		return 0, fault.Usagef("core needs program: the executable that produced it")
	case in.Pid < 0:
		return 0, fault.Usagef("pid %d: must be positive", in.Pid)
	case in.SSHHost != "":
		return wait, in.checkRemote()
	}
	in.Core = argpath.Resolve(in.Core, in.Cwd, in.ProjectDir)
	if in.Pid != 0 || in.Core != "" {
		in.Program = argpath.Resolve(in.Program, in.Cwd, in.ProjectDir)
	}
	return wait, nil
}

// checkRemote refuses a relative path for the host: a relative one would
// be taken in the remote user's login directory, not where the caller
// means. A program without a slash is looked up on the host's PATH. The
// session's project_dir is this side's and is not the program's working
// directory there.
func (in *attachParams) checkRemote() error {
	if err := remote.CheckHost(in.SSHHost); err != nil {
		return fault.Usage(err)
	}
	for _, p := range []struct{ name, path string }{{"program", in.Program}, {"core", in.Core}, {"cwd", in.Cwd}} {
		if p.path != "" && !path.IsAbs(p.path) && (p.name != "program" || strings.Contains(p.path, "/")) {
			return fault.Usagef("%s %s: give an absolute path on %s (a relative one would be taken in the remote login directory)", p.name, p.path, in.SSHHost)
		}
	}
	in.ProjectDir = ""
	return nil
}

// loadCore opens a core with its executable. A core opened with the wrong
// executable gives nonsense frames, not an error: what the core's notes say
// is checked first.
func (h *handler) loadCore(ctx context.Context, backend string, in attachParams) (debugger.SessionInfo, string, error) {
	if in.SSHHost != "" {
		// The core is the host's: its debugger reads it, and the notes
		// are not read here.
		info, err := h.svc.Debugger().LoadCore(ctx, backend, debugger.CoreSpec{Program: in.Program, Core: in.Core, SSHHost: in.SSHHost})
		return info, "", attachError(err)
	}
	ci, err := coredump.OpenCore(in.Core)
	if err != nil {
		return debugger.SessionInfo{}, "", fault.Usagef("core %s: %w", in.Core, err)
	}
	if err := ci.MatchExe(in.Program); err != nil {
		return debugger.SessionInfo{}, "", fault.Usagef("%w (the core's program: %s)", err, ci.ExePath)
	}
	info, err := h.svc.Debugger().LoadCore(ctx, backend, debugger.CoreSpec{Program: in.Program, Core: in.Core})
	if err != nil {
		return info, "", attachError(redact.Error(err, in.Env))
	}
	return info, ci.SignalName, nil
}

// launch starts the program under the debugger, with its breakpoints set
// first, and waits for the stop they (or stop_on_entry) ask for.
func (h *handler) launch(ctx context.Context, backend string, in attachParams, wait time.Duration) (debugger.SessionInfo, error) {
	program, dir := in.Program, in.Cwd // the host's, looked up there
	if in.SSHHost == "" {
		var err error
		if program, err = argpath.Find(in.Program, in.Cwd, in.ProjectDir); err != nil {
			return debugger.SessionInfo{}, fault.Usage(err)
		}
		dir = argpath.Base(in.Cwd, in.ProjectDir)
	}
	var bps, watches []debugger.BreakpointSpec
	for _, s := range in.Breakpoints {
		bp, err := parseLocation(s)
		if err != nil {
			return debugger.SessionInfo{}, err
		}
		if bp.Watch != "" {
			watches = append(watches, bp) // set at the first stop: a watch needs a live process
		} else {
			bps = append(bps, bp)
		}
	}
	if len(watches) > 0 && len(bps) == 0 && !in.StopOnEntry {
		return debugger.SessionInfo{}, fault.Usagef("a watch needs a live process: give a breakpoint to stop at first (main, say), where the watch is set")
	}
	m := h.svc.Debugger()
	spec := debugger.LaunchSpec{Program: program, Args: in.Args, Dir: dir, Env: in.Env, StopOnEntry: in.StopOnEntry, Breakpoints: bps, SSHHost: in.SSHHost}
	info, err := m.Launch(ctx, backend, spec)
	if err != nil {
		// A debugger's error may quote its launch command, env included.
		return info, attachError(redact.Error(err, in.Env))
	}
	if len(bps) > 0 || in.StopOnEntry {
		// The target runs to the entry or the first breakpoint (or the
		// end); an adapter may report that stop after the launch returns.
		if b, err := m.Backend(ctx, info.ID); err == nil {
			st, _ := b.WaitStop(ctx, wait) // still running is said by the result
			if err := setWatches(ctx, b, st, watches); err != nil {
				_ = m.Detach(ctx, info.ID) // no session the caller was not told of
				return debugger.SessionInfo{}, err
			}
		}
	}
	return info, nil
}

// setWatches sets a launch's watches at its first stop; an error ends
// the session (the caller detaches).
func setWatches(ctx context.Context, b debugger.Backend, st debugger.State, watches []debugger.BreakpointSpec) error {
	for _, w := range watches {
		if st.Status != debugger.StatusStopped {
			return fmt.Errorf("the target did not stop before watch %s could be set (it is %s); the session was ended", w.Watch, st.Status)
		}
		if _, err := b.AddBreakpoint(ctx, w); err != nil {
			return fmt.Errorf("watch %s could not be set at the first stop (the session was ended): %w", w.Watch, err)
		}
	}
	return nil
}

// withCoreSignal fills in the signal a core's notes record when the
// debugger's stop does not say it (lldb-vscode reports a core without one).
func withCoreSignal(st debugger.State, signal string) debugger.State {
	if st.LastStop == nil || st.LastStop.Signal != "" || signal == "" {
		return st
	}
	stop := *st.LastStop
	stop.Signal = signal
	st.LastStop = &stop
	return st
}

// attachError keeps the backend's own words and marks what the caller must fix.
func attachError(err error) error {
	switch debugger.RefusalOf(err) {
	case debugger.RefusedPermission:
		return fault.Usagef("%w (another debugger may be tracing it, or ptrace is restricted: see doctor)", err)
	case debugger.RefusedArgument:
		return fault.Usage(err)
	}
	return err
}

// parseLocation reads "file:line" or a function name.
func parseLocation(s string) (debugger.BreakpointSpec, error) {
	// gdb's own words: watch (a write), rwatch (a read), awatch (either),
	// catch (an exception kind: c++, go-panic, rust-panic, abort,
	// signal:SIG…). A file named so with a line number stays a file.
	if kind, rest, ok := strings.Cut(s, ":"); ok && rest != "" {
		if _, err := strconv.Atoi(rest); err != nil {
			switch kind {
			case "watch", "rwatch", "awatch":
				access := map[string]string{"watch": "write", "rwatch": "read", "awatch": "readwrite"}[kind]
				return debugger.BreakpointSpec{Watch: rest, Access: access}, nil
			case "catch":
				return debugger.BreakpointSpec{Exception: rest}, nil
			}
		}
	}
	if i := strings.LastIndexByte(s, ':'); i > 0 {
		if n, err := strconv.Atoi(s[i+1:]); err == nil {
			return debugger.BreakpointSpec{File: s[:i], Line: n}, nil
		}
	}
	if s == "" {
		return debugger.BreakpointSpec{}, fault.Usagef("empty breakpoint: give a function name or file:line")
	}
	return debugger.BreakpointSpec{Function: s}, nil
}

type detachParams struct {
	sessionParam
}

// DetachOutput reports an ended session.
type DetachOutput struct {
	SessionID string `json:"session_id" jsonschema:"the ended session"`
}

func (h *handler) detach(ctx context.Context, c *catalog.Call, in detachParams) (catalog.Result[DetachOutput], error) {
	m := h.svc.Debugger()
	info, err := m.Info(ctx, in.SessionID)
	if err != nil {
		return catalog.Result[DetachOutput]{}, describe(err)
	}
	if err := m.Detach(ctx, info.ID); err != nil && !errors.Is(err, debugger.ErrSessionDead) {
		return catalog.Result[DetachOutput]{}, err
	}
	return catalog.Result[DetachOutput]{Text: fmt.Sprintf("DETACHED %s (%s)\n", info.ID, info.Target), Output: DetachOutput{SessionID: info.ID}}, nil
}
