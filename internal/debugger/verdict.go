package debugger

import (
	"errors"
	"path/filepath"
	"strings"
)

// Verdict is what a session's state comes to, for its verdict line: which
// kind of state, and the facts the line names. Wording is the caller's.
type Verdict struct {
	Kind VerdictKind
	// Signal is the signal (or, lacking one, the stop reason) of a crash,
	// or the signal of a stop on one.
	Signal string
	// Reason is a stop's reason when nothing more specific names it.
	Reason StopReason
	// Breakpoint is the breakpoint stopped at, 0 when it is not known
	// which one (or several share the line).
	Breakpoint int
	// ExitCode is an exited target's code, when known.
	ExitCode *int
}

// VerdictKind classifies a session's state.
type VerdictKind int

const (
	VerdictDead       VerdictKind = iota // the debugger died
	VerdictExited                        // the target exited
	VerdictRunning                       // the target runs
	VerdictStopped                       // stopped, no stop recorded, or for a reason in Reason
	VerdictCrashed                       // stopped on a fatal signal or exception
	VerdictSignal                        // stopped on a signal that does not kill
	VerdictBreakpoint                    // stopped at a breakpoint
	VerdictWatch                         // stopped by a watchpoint: Breakpoint is it
	VerdictException                     // an exception breakpoint caught Signal (the kind) before unwinding
)

// VerdictOf decides the verdict of a state, given the stopped thread's
// frames (top first) and the session's breakpoints: an adapter whose stop
// does not say which breakpoint was hit (lldb-vscode) is answered by the
// breakpoints at the top frame's line.
func VerdictOf(st State, frames []Frame, bps []Breakpoint) Verdict {
	stop := st.LastStop
	switch {
	case st.Status == StatusDead:
		return Verdict{Kind: VerdictDead}
	case st.Status == StatusExited:
		v := Verdict{Kind: VerdictExited}
		if stop != nil {
			v.ExitCode = stop.ExitCode
		}
		return v
	case st.Status == StatusRunning:
		return Verdict{Kind: VerdictRunning}
	case stop == nil:
		return Verdict{Kind: VerdictStopped}
	case stop.Watch != nil:
		return Verdict{Kind: VerdictWatch, Breakpoint: stop.Watch.ID}
	case stop.Exception != "":
		v := Verdict{Kind: VerdictException, Signal: stop.Exception}
		if len(stop.BreakpointIDs) == 1 {
			v.Breakpoint = stop.BreakpointIDs[0]
		}
		return v
	case stop.Crashed():
		sig := stop.Signal
		if sig == "" {
			sig = string(stop.Reason)
		}
		return Verdict{Kind: VerdictCrashed, Signal: sig}
	case stop.Signal != "":
		return Verdict{Kind: VerdictSignal, Signal: stop.Signal}
	case stop.Reason == StopBreakpoint:
		ids := stop.BreakpointIDs
		if len(ids) == 0 && len(frames) > 0 {
			ids = breakpointsAt(bps, frames[0])
		}
		v := Verdict{Kind: VerdictBreakpoint}
		if len(ids) == 1 {
			v.Breakpoint = ids[0]
		}
		return v
	}
	return Verdict{Kind: VerdictStopped, Reason: stop.Reason}
}

// breakpointsAt names the breakpoints resolved to frame's line.
func breakpointsAt(bps []Breakpoint, frame Frame) []int {
	var ids []int
	for _, bp := range bps {
		if bp.Line == frame.Line && bp.File != "" && frame.File != "" && filepath.Base(bp.File) == filepath.Base(frame.File) {
			ids = append(ids, bp.ID)
		}
	}
	return ids
}

// StartRefusal says why starting a session (launch, attach, open a core)
// failed, by the backend's own words, when the cause is the caller's to
// fix.
type StartRefusal int

const (
	// NotRefused: the debugger itself failed.
	NotRefused StartRefusal = iota
	// RefusedArgument: the arguments name what cannot be debugged: an
	// unknown backend, a missing file or process, a core that is not one
	// or does not match its program.
	RefusedArgument
	// RefusedPermission: the system would not let the debugger trace the
	// target (another tracer, or ptrace restricted).
	RefusedPermission
)

// callerWords are what debuggers say when the target named does not exist
// or does not fit.
var callerWords = []string{"no such file", "not found", "does not exist", "no such process", "no process with pid", "invalid pid", "not a core", "does not match"}

// RefusalOf classifies the error of a session start.
func RefusalOf(err error) StartRefusal {
	if err == nil {
		return NotRefused
	}
	if errors.Is(err, ErrUnknownBackend) {
		return RefusedArgument
	}
	msg := strings.ToLower(err.Error())
	if strings.Contains(msg, "not permitted") {
		return RefusedPermission
	}
	for _, s := range callerWords {
		if strings.Contains(msg, s) {
			return RefusedArgument
		}
	}
	return NotRefused
}
