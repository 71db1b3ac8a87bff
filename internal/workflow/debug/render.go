package debug

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/crashsite"
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
		frames, _ = b.Stack(ctx, 0, stackDepth(st)) // the verdict stands without them
	}
	info, _ := h.svc.Debugger().Info(ctx, id)
	site := crashSite(ctx, b, st, frames, info)
	frames = frames[:min(len(frames), topFrames)]
	out := StopOutput{SessionID: id, Backend: b.Name(), State: wire.DebugStateOf(st), Frames: wire.DebugFramesOf(frames),
		Breakpoints: wire.BreakpointsOf(bps), CrashSite: wire.CrashSiteOf(site)}
	var sb strings.Builder
	writeStop(&sb, out, st, frames, bps, note, info.SSHHost)
	if site != nil {
		site.WriteText(&sb)
	}
	h.writeLogpoints(ctx, &sb, b, id)
	writeNextCalls(&sb, id, st.Status, info.Core != "")
	outcome := catalog.OK
	if st.LastStop.Crashed() || st.Status == debugger.StatusDead {
		outcome = catalog.Failed
	}
	return catalog.Result[StopOutput]{Text: sb.String(), Output: out, Outcome: outcome}, nil
}

// stackDepth is how many frames a stop result takes: a crash's are looked
// through for the program's own frame, the others' top ones shown.
func stackDepth(st debugger.State) int {
	if st.LastStop.Crashed() {
		return debugger.SiteFrames
	}
	return topFrames
}

// crashSite is a crashed session's crash site, its sources looked for by
// the program's directory; none on another host, whose files those are.
func crashSite(ctx context.Context, b debugger.Backend, st debugger.State, frames []debugger.Frame, info debugger.SessionInfo) *crashsite.Site {
	if info.SSHHost != "" {
		return nil
	}
	var dirs []string
	if info.Target != "" {
		dirs = append(dirs, filepath.Dir(info.Target))
	}
	return debugger.CrashSite(ctx, b, st.LastStop, frames, dirs...)
}

// writeStop writes the verdict line (ending "on HOST" for a remote
// session), the session, the note and the top frames.
func writeStop(sb *strings.Builder, out StopOutput, st debugger.State, frames []debugger.Frame, bps []debugger.Breakpoint, note, host string) {
	sb.WriteString(verdictLine(st, frames, bps))
	if host != "" {
		sb.WriteString(" on " + host)
	}
	fmt.Fprintf(sb, "\nsession %s (%s)", out.SessionID, out.Backend)
	if st.Pid != 0 {
		fmt.Fprintf(sb, ", pid %d", st.Pid)
	}
	sb.WriteByte('\n')
	if note != "" {
		sb.WriteString(note + "\n")
	}
	for _, f := range frames {
		fmt.Fprintf(sb, "  %s\n", frameString(f))
	}
}

// writeNextCalls names the calls that make sense in the session's state:
// a core is only looked at; a stopped target is looked at or moved on; a
// running one is waited for or paused.
func writeNextCalls(sb *strings.Builder, id string, status debugger.Status, core bool) {
	session := map[string]any{"session_id": id}
	wait := map[string]any{"session_id": id, "wait_s": 30}
	switch {
	case core:
		fmt.Fprintf(sb, "next: %s, %s\n", catalog.NextCall("debug_variables", session), catalog.NextCall("debug_stack", session))
	case status == debugger.StatusStopped:
		fmt.Fprintf(sb, "next: %s, %s, %s\n", catalog.NextCall("debug_variables", session),
			catalog.NextCall("debug_step", session), catalog.NextCall("debug_continue", wait))
	case status == debugger.StatusRunning:
		fmt.Fprintf(sb, "next: %s or %s\n", catalog.NextCall("debug_continue", wait), catalog.NextCall("debug_pause", session))
	}
}

// verdictLine words the debugger's verdict on a state.
func verdictLine(st debugger.State, frames []debugger.Frame, bps []debugger.Breakpoint) string {
	where := ""
	if len(frames) > 0 {
		where = " in " + frameString(frames[0])
	}
	v := debugger.VerdictOf(st, frames, bps)
	switch v.Kind {
	case debugger.VerdictDead:
		return "DEBUGGER DEAD: " + st.Error
	case debugger.VerdictExited:
		if v.ExitCode != nil {
			return fmt.Sprintf("EXITED (code %d)", *v.ExitCode)
		}
		return "EXITED"
	case debugger.VerdictRunning:
		return "RUNNING"
	case debugger.VerdictCrashed:
		return fmt.Sprintf("CRASHED (%s)%s", v.Signal, where)
	case debugger.VerdictSignal:
		return fmt.Sprintf("STOPPED (%s)%s", v.Signal, where)
	case debugger.VerdictException:
		return fmt.Sprintf("STOPPED at %s (caught before unwinding)%s", exceptionWhat(v.Signal), where)
	case debugger.VerdictWatch:
		return watchLine(st.LastStop.Watch, where)
	case debugger.VerdictBreakpoint:
		if v.Breakpoint != 0 {
			return fmt.Sprintf("STOPPED at breakpoint %d%s", v.Breakpoint, where)
		}
		return "STOPPED at breakpoint" + where
	}
	if v.Reason == debugger.StopEntry {
		return "STOPPED at entry" + where
	}
	if v.Reason != "" {
		return fmt.Sprintf("STOPPED (%s)%s", v.Reason, where)
	}
	return "STOPPED" + where
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

// exceptionWhat words an exception stop's kind ("c++: std::runtime_error").
func exceptionWhat(kind string) string {
	switch k, _, _ := strings.Cut(kind, ":"); k {
	case "c++":
		return "a C++ throw" + strings.TrimPrefix(kind, "c++")
	case "go-panic":
		return "a Go panic"
	case "rust-panic":
		return "a Rust panic"
	case "abort":
		return "abort()"
	case "signal":
		return strings.TrimPrefix(kind, "signal:")
	}
	return kind
}

// watchLine words a watchpoint's stop: its expression, old → new, and
// the line that wrote it.
func watchLine(w *debugger.WatchHit, where string) string {
	s := fmt.Sprintf("STOPPED at watchpoint %d: %s", w.ID, w.Expr)
	if w.Old != "" || w.New != "" {
		s += fmt.Sprintf(" %s → %s", w.Old, w.New)
	}
	if w.File != "" {
		return s + fmt.Sprintf(", written at %s:%d", filepath.Base(w.File), w.Line)
	}
	return s + where
}
