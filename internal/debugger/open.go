package debugger

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/argpath"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/redact"
)

// OpenSpec is one way into a session: a pid to attach to, a core with the
// program that produced it, or a program to launch (the default).
type OpenSpec struct {
	Pid         int
	Program     string
	Args        []string
	Core        string
	StopOnEntry bool
	Breakpoints []string // locations (ParseLocation), set before a launch runs
	Cwd         string   // the program's directory, taken in ProjectDir
	ProjectDir  string
	Env         map[string]string
	Wait        time.Duration // for a launch's first stop
	SSHHost     string
	// CheckCore checks a local core against its program before it is
	// opened (a core opened with the wrong executable gives nonsense
	// frames, not an error) and returns the signal its notes record.
	CheckCore func(core, program string) (signal string, err error)
}

// Check refuses a spec that is not exactly one way in, and resolves its
// paths as the program would be run (made absolute). A remote session's
// paths are the host's: a relative one would be taken in the remote login
// directory, so it is refused (a program without a slash is looked up on
// the host's PATH), and project_dir is this side's.
func (s *OpenSpec) Check() error {
	switch {
	case (s.Pid != 0 && s.Core != "") || (s.Pid == 0 && s.Core == "" && s.Program == ""):
		return fault.Usagef("give exactly one of: pid; program (+ args) to launch; core + program")
	case s.Core != "" && s.Program == "":
		return fault.Usagef("core needs program: the executable that produced it")
	case s.Pid < 0:
		return fault.Usagef("pid %d: must be positive", s.Pid)
	case s.SSHHost != "":
		return s.checkRemote()
	}
	s.Core = argpath.Resolve(s.Core, s.Cwd, s.ProjectDir)
	if s.Pid != 0 || s.Core != "" {
		s.Program = argpath.Resolve(s.Program, s.Cwd, s.ProjectDir)
	}
	return nil
}

func (s *OpenSpec) checkRemote() error {
	for _, p := range []struct{ name, path string }{{"program", s.Program}, {"core", s.Core}, {"cwd", s.Cwd}} {
		if p.path != "" && !path.IsAbs(p.path) && (p.name != "program" || strings.Contains(p.path, "/")) {
			return fault.Usagef("%s %s: give an absolute path on %s (a relative one would be taken in the remote login directory)", p.name, p.path, s.SSHHost)
		}
	}
	s.ProjectDir = ""
	return nil
}

// Open starts the session spec asks for (after Check) and returns its
// backend and state. A launch sets its breakpoints first and waits for the
// stop they (or StopOnEntry) ask for; a core's state carries the signal
// its notes record when the debugger does not say it. A refusal keeps the
// backend's own words and is marked a usage error when the caller must
// fix it; a debugger's error may quote its launch command, so the
// environment's values are masked in it.
func (m *Manager) Open(ctx context.Context, backend string, spec OpenSpec) (Backend, SessionInfo, State, error) {
	var info SessionInfo
	var err error
	signal := ""
	switch {
	case spec.Pid != 0:
		info, err = m.Attach(ctx, backend, AttachSpec{Pid: spec.Pid, Program: spec.Program, SSHHost: spec.SSHHost})
		err = spec.startError(err)
	case spec.Core != "":
		info, signal, err = m.openCore(ctx, backend, spec)
	default:
		info, err = m.launchAndWait(ctx, backend, spec)
	}
	if err != nil {
		return nil, info, State{}, err
	}
	b, err := m.Backend(ctx, info.ID)
	if err != nil {
		return nil, info, State{}, err
	}
	return b, info, withCoreSignal(b.State(), signal), nil
}

// openCore opens a core; a local one is checked against its program first.
func (m *Manager) openCore(ctx context.Context, backend string, s OpenSpec) (SessionInfo, string, error) {
	signal := ""
	if s.SSHHost == "" && s.CheckCore != nil {
		var err error
		if signal, err = s.CheckCore(s.Core, s.Program); err != nil {
			return SessionInfo{}, "", err
		}
	}
	info, err := m.LoadCore(ctx, backend, CoreSpec{Program: s.Program, Core: s.Core, SSHHost: s.SSHHost})
	return info, signal, s.startError(err)
}

// launchAndWait launches the program, its code breakpoints set first and
// its watches at the first stop (a watch needs a live process).
func (m *Manager) launchAndWait(ctx context.Context, backend string, s OpenSpec) (SessionInfo, error) {
	program, dir, err := s.launchPaths()
	if err != nil {
		return SessionInfo{}, err
	}
	bps, watches, err := splitLocations(s.Breakpoints)
	if err != nil {
		return SessionInfo{}, err
	}
	if len(watches) > 0 && len(bps) == 0 && !s.StopOnEntry {
		return SessionInfo{}, fault.Usagef("a watch needs a live process: give a breakpoint to stop at first (main, say), where the watch is set")
	}
	info, err := m.Launch(ctx, backend, LaunchSpec{Program: program, Args: s.Args, Dir: dir, Env: s.Env, StopOnEntry: s.StopOnEntry, Breakpoints: bps, SSHHost: s.SSHHost})
	if err != nil || (len(bps) == 0 && !s.StopOnEntry) {
		return info, s.startError(err)
	}
	// The target runs to the entry or the first breakpoint (or the end);
	// an adapter may report that stop after the launch returns.
	if b, err := m.Backend(ctx, info.ID); err == nil {
		st, _ := b.WaitStop(ctx, s.Wait) // still running is said by the result
		if err := setWatches(ctx, b, st, watches); err != nil {
			_ = m.Detach(ctx, info.ID) // no session the caller was not told of
			return SessionInfo{}, err
		}
	}
	return info, nil
}

// launchPaths finds the program to launch and its directory; a remote
// host's are its own, looked up there.
func (s OpenSpec) launchPaths() (program, dir string, err error) {
	if s.SSHHost != "" {
		return s.Program, s.Cwd, nil
	}
	if program, err = argpath.Find(s.Program, s.Cwd, s.ProjectDir); err != nil {
		return "", "", fault.Usage(err)
	}
	return program, argpath.Base(s.Cwd, s.ProjectDir), nil
}

// splitLocations parses a launch's locations into code breakpoints and
// watches.
func splitLocations(locs []string) (bps, watches []BreakpointSpec, err error) {
	for _, s := range locs {
		bp, err := ParseLocation(s)
		if err != nil {
			return nil, nil, err
		}
		if bp.Watch != "" {
			watches = append(watches, bp)
		} else {
			bps = append(bps, bp)
		}
	}
	return bps, watches, nil
}

// setWatches sets a launch's watches at its first stop; an error ends
// the session (the caller detaches).
func setWatches(ctx context.Context, b Backend, st State, watches []BreakpointSpec) error {
	for _, w := range watches {
		if st.Status != StatusStopped {
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
func withCoreSignal(st State, signal string) State {
	if st.LastStop == nil || st.LastStop.Signal != "" || signal == "" {
		return st
	}
	stop := *st.LastStop
	stop.Signal = signal
	st.LastStop = &stop
	return st
}

// startError is StartError with the environment's values masked.
func (s OpenSpec) startError(err error) error { return StartError(redact.Error(err, s.Env)) }

// StartError keeps the backend's own words and marks what the caller must
// fix: a refused permission (another debugger, ptrace restrictions) or
// argument.
func StartError(err error) error {
	switch RefusalOf(err) {
	case RefusedPermission:
		return fault.Usagef("%w (another debugger may be tracing it, or ptrace is restricted: see doctor)", err)
	case RefusedArgument:
		return fault.Usage(err)
	}
	return err
}

// ParseLocation reads a breakpoint location: "file:line", a function name,
// or in gdb's own words watch:EXPR (a write), rwatch: (a read), awatch:
// (either), catch:KIND (an exception kind: c++, go-panic, rust-panic,
// abort, signal:SIG…). A file named so with a line number stays a file.
func ParseLocation(s string) (BreakpointSpec, error) {
	if kind, rest, ok := strings.Cut(s, ":"); ok && rest != "" {
		if _, err := strconv.Atoi(rest); err != nil {
			switch kind {
			case "watch", "rwatch", "awatch":
				access := map[string]string{"watch": "write", "rwatch": "read", "awatch": "readwrite"}[kind]
				return BreakpointSpec{Watch: rest, Access: access}, nil
			case "catch":
				return BreakpointSpec{Exception: rest}, nil
			}
		}
	}
	if i := strings.LastIndexByte(s, ':'); i > 0 {
		if n, err := strconv.Atoi(s[i+1:]); err == nil {
			return BreakpointSpec{File: s[:i], Line: n}, nil
		}
	}
	if s == "" {
		return BreakpointSpec{}, fault.Usagef("empty breakpoint: give a function name or file:line")
	}
	return BreakpointSpec{Function: s}, nil
}

// AttachStopped attaches to spec.Pid and leaves the target stopped: the
// caller attached to look at it. An adapter may report the attach stop
// after Attach returns (waited for up to wait); one that resumed the
// target anyway is paused.
func (m *Manager) AttachStopped(ctx context.Context, backend string, spec AttachSpec, wait time.Duration) (Backend, SessionInfo, State, error) {
	spec.StayStopped = true
	info, err := m.Attach(ctx, backend, spec)
	if err != nil {
		return nil, info, State{}, StartError(err)
	}
	b, err := m.Backend(ctx, info.ID)
	if err != nil {
		return nil, info, State{}, err
	}
	st, err := b.WaitStop(ctx, wait)
	if err != nil && !errors.Is(err, ErrTimeout) {
		return b, info, st, err
	}
	if st.Status == StatusRunning {
		st, err = b.Pause(ctx)
		return b, info, st, err
	}
	return b, info, st, nil
}

// Session is the backend and description of session id ("" for the
// current one); an unknown id's error names the caller's open sessions.
func (m *Manager) Session(ctx context.Context, id string) (Backend, SessionInfo, error) {
	b, err := m.Backend(ctx, id)
	if errors.Is(err, ErrUnknownSession) {
		var ids []string
		for _, s := range m.List(ctx) {
			ids = append(ids, s.ID)
		}
		if len(ids) > 0 {
			err = fmt.Errorf("%w (open: %s)", err, strings.Join(ids, ", "))
		}
	}
	if err != nil {
		return nil, SessionInfo{}, err
	}
	info, _ := m.Info(ctx, id)
	return b, info, nil
}
