package debug

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// topFrames is how many frames a stop result shows.
const topFrames = 5

// stopResult renders a session's state: the verdict line (STOPPED, CRASHED,
// EXITED, RUNNING, DEAD), the top frames when stopped, and the next calls.
func (h *handler) stopResult(ctx context.Context, b debugger.Backend, id string, st debugger.State, note string) (catalog.Result[StopOutput], error) {
	bps := b.Breakpoints()
	var frames []debugger.Frame
	if st.Status == debugger.StatusStopped {
		frames, _ = b.Stack(ctx, 0, topFrames) // the verdict stands without them
	}
	out := StopOutput{SessionID: id, Backend: b.Name(), State: wire.DebugStateOf(st), Frames: wire.DebugFramesOf(frames), Breakpoints: wire.BreakpointsOf(bps)}
	var sb strings.Builder
	sb.WriteString(verdictLine(st, frames, bps))
	fmt.Fprintf(&sb, "\nsession %s (%s)", id, b.Name())
	if st.Pid != 0 {
		fmt.Fprintf(&sb, ", pid %d", st.Pid)
	}
	sb.WriteByte('\n')
	if note != "" {
		sb.WriteString(note + "\n")
	}
	for _, f := range frames {
		fmt.Fprintf(&sb, "  %s\n", frameString(f))
	}
	outcome := catalog.OK
	if crashed(st.LastStop) {
		outcome = catalog.Failed
	}
	info, _ := h.svc.Debugger().Info(ctx, id)
	switch {
	case info.Core != "":
		fmt.Fprintf(&sb, "next: %s, %s\n",
			catalog.NextCall("debug_variables", map[string]any{"session_id": id}),
			catalog.NextCall("debug_stack", map[string]any{"session_id": id}))
	case st.Status == debugger.StatusStopped:
		fmt.Fprintf(&sb, "next: %s, %s, %s\n",
			catalog.NextCall("debug_variables", map[string]any{"session_id": id}),
			catalog.NextCall("debug_step", map[string]any{"session_id": id}),
			catalog.NextCall("debug_continue", map[string]any{"session_id": id, "wait_s": 30}))
	case st.Status == debugger.StatusRunning:
		fmt.Fprintf(&sb, "next: %s or %s\n",
			catalog.NextCall("debug_continue", map[string]any{"session_id": id, "wait_s": 30}),
			catalog.NextCall("debug_pause", map[string]any{"session_id": id}))
	}
	if st.Status == debugger.StatusDead {
		outcome = catalog.Failed
	}
	return catalog.Result[StopOutput]{Text: sb.String(), Output: out, Outcome: outcome}, nil
}

func verdictLine(st debugger.State, frames []debugger.Frame, bps []debugger.Breakpoint) string {
	where := ""
	if len(frames) > 0 {
		where = " in " + frameString(frames[0])
	}
	stop := st.LastStop
	switch {
	case st.Status == debugger.StatusDead:
		return "DEBUGGER DEAD: " + st.Error
	case st.Status == debugger.StatusExited && stop != nil && stop.ExitCode != nil:
		return fmt.Sprintf("EXITED (code %d)", *stop.ExitCode)
	case st.Status == debugger.StatusExited:
		return "EXITED"
	case st.Status == debugger.StatusRunning:
		return "RUNNING"
	case stop == nil:
		return "STOPPED" + where
	case crashed(stop):
		sig := stop.Signal
		if sig == "" {
			sig = string(stop.Reason)
		}
		return fmt.Sprintf("CRASHED (%s)%s", sig, where)
	case stop.Signal != "":
		return fmt.Sprintf("STOPPED (%s)%s", stop.Signal, where)
	case stop.Reason == debugger.StopBreakpoint:
		ids := stop.BreakpointIDs
		if len(ids) == 0 && len(frames) > 0 {
			ids = breakpointsAt(bps, frames[0])
		}
		if len(ids) == 1 {
			return fmt.Sprintf("STOPPED at breakpoint %d%s", ids[0], where)
		}
		return "STOPPED at breakpoint" + where
	}
	return fmt.Sprintf("STOPPED (%s)%s", stop.Reason, where)
}

// stopSignals are signals a debugger reports as stops but that do not kill
// the target: the SIGSTOP of a launch or attach, job control, a pause's
// SIGINT. Stopping on one is no crash.
var stopSignals = map[string]bool{
	"SIGSTOP": true, "SIGTSTP": true, "SIGTTIN": true, "SIGTTOU": true,
	"SIGCONT": true, "SIGCHLD": true, "SIGWINCH": true, "SIGURG": true, "SIGINT": true,
}

// crashed reports a stop on a fatal signal or exception.
func crashed(stop *debugger.Stop) bool {
	return stop.Crashed() && !stopSignals[stop.Signal]
}

// breakpointsAt names the breakpoints resolved to frame's line, for adapters
// whose stopped event does not say which breakpoint was hit (lldb-vscode).
func breakpointsAt(bps []debugger.Breakpoint, frame debugger.Frame) []int {
	var ids []int
	for _, bp := range bps {
		if bp.Line == frame.Line && bp.File != "" && frame.File != "" && filepath.Base(bp.File) == filepath.Base(frame.File) {
			ids = append(ids, bp.ID)
		}
	}
	return ids
}

func frameString(f debugger.Frame) string {
	s := f.Function
	if s == "" {
		s = f.Address
	}
	// lldb-vscode names a frame without line info after its function, as
	// a disassembly "source": that is no file:line.
	if f.File != "" && filepath.Base(f.File) != f.Function {
		s += fmt.Sprintf(" at %s:%d", filepath.Base(f.File), f.Line)
	}
	return s
}
