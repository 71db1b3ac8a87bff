package debugger

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/triage-dev/triage/internal/crashsite"
)

// ReportFrames is how many frames a stop report shows.
const ReportFrames = 5

// StopReport is what a session's state comes to after a call: the state,
// the stopped thread's top frames, the breakpoints, and a crash's site.
type StopReport struct {
	Info        SessionInfo
	Backend     string
	State       State
	Frames      []Frame // the top ReportFrames
	Breakpoints []Breakpoint
	Site        *crashsite.Site
	// Threads are the target's threads at a stop, when it has several
	// (ListThreads): where the others are.
	Threads *ThreadList
}

// Report describes st of the session info names. A crash's frames are
// looked through for the program's own (its sources looked for by the
// program's directory; none on another host, whose files those are); the
// verdict stands without frames the backend cannot give.
func Report(ctx context.Context, b Backend, info SessionInfo, st State) StopReport {
	r := StopReport{Info: info, Backend: b.Name(), State: st, Breakpoints: b.Breakpoints()}
	var frames []Frame
	if st.Status == StatusStopped {
		depth := ReportFrames
		if st.LastStop.Crashed() {
			depth = SiteFrames
		}
		frames, _ = b.Stack(ctx, 0, depth)
		if l, err := ListThreads(ctx, b); err == nil && len(l.Threads) > 1 {
			r.Threads = &l
		}
	}
	if info.SSHHost == "" {
		var dirs []string
		if info.Target != "" {
			dirs = append(dirs, filepath.Dir(info.Target))
		}
		r.Site = CrashSite(ctx, b, st.LastStop, frames, dirs...)
	}
	r.Frames = frames[:min(len(frames), ReportFrames)]
	return r
}

// WriteText writes the verdict line (ending "on HOST" for a remote
// session), the session, the note, the top frames and the crash site.
func (r StopReport) WriteText(sb *strings.Builder, note string) {
	sb.WriteString(VerdictLine(r.State, r.Frames, r.Breakpoints))
	if r.Info.SSHHost != "" {
		sb.WriteString(" on " + r.Info.SSHHost)
	}
	fmt.Fprintf(sb, "\nsession %s (%s)", r.Info.ID, r.Backend)
	if r.State.Pid != 0 {
		fmt.Fprintf(sb, ", pid %d", r.State.Pid)
	}
	sb.WriteByte('\n')
	if r.Threads != nil {
		sb.WriteString(r.Threads.Summary())
	}
	if note != "" {
		sb.WriteString(note + "\n")
	}
	for _, f := range r.Frames {
		fmt.Fprintf(sb, "  %s\n", f.Text())
	}
	if r.Site != nil {
		r.Site.WriteText(sb)
	}
}

// VerdictLine words the verdict on a state (VerdictOf): STOPPED, CRASHED,
// EXITED, RUNNING or DEBUGGER DEAD, and where.
func VerdictLine(st State, frames []Frame, bps []Breakpoint) string {
	where := ""
	if len(frames) > 0 {
		where = " in " + frames[0].Text()
	}
	v := VerdictOf(st, frames, bps)
	switch v.Kind {
	case VerdictDead:
		return "DEBUGGER DEAD: " + st.Error
	case VerdictExited:
		if v.ExitCode != nil {
			return fmt.Sprintf("EXITED (code %d)", *v.ExitCode)
		}
		return "EXITED"
	case VerdictRunning:
		return "RUNNING"
	case VerdictCrashed:
		return fmt.Sprintf("CRASHED (%s)%s", v.Signal, where)
	case VerdictWatch:
		return watchLine(st.LastStop.Watch, where)
	}
	return stoppedLine(v, where)
}

// stoppedLine words a stop that is no crash.
func stoppedLine(v Verdict, where string) string {
	switch {
	case v.Kind == VerdictSignal:
		return fmt.Sprintf("STOPPED (%s)%s", v.Signal, where)
	case v.Kind == VerdictException:
		return fmt.Sprintf("STOPPED at %s (caught before unwinding)%s", exceptionWhat(v.Signal), where)
	case v.Kind == VerdictBreakpoint && v.Breakpoint != 0:
		return fmt.Sprintf("STOPPED at breakpoint %d%s", v.Breakpoint, where)
	case v.Kind == VerdictBreakpoint:
		return "STOPPED at breakpoint" + where
	case v.Reason == StopEntry:
		return "STOPPED at entry" + where
	case v.Reason != "":
		return fmt.Sprintf("STOPPED (%s)%s", v.Reason, where)
	}
	return "STOPPED" + where
}

// Text is the frame's function (or address) and its file:line.
func (f Frame) Text() string {
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
func watchLine(w *WatchHit, where string) string {
	s := fmt.Sprintf("STOPPED at watchpoint %d: %s", w.ID, w.Expr)
	if w.Old != "" || w.New != "" {
		s += fmt.Sprintf(" %s → %s", w.Old, w.New)
	}
	if w.File != "" {
		return s + fmt.Sprintf(", written at %s:%d", filepath.Base(w.File), w.Line)
	}
	return s + where
}
