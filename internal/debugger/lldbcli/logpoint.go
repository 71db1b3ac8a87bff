package lldbcli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
)

// Logpoints on the lldb command line: the breakpoint gets a Python command
// (debugger's logpoint.py) that appends the hit to the session's event log
// and returns False, so lldb goes on without a stop report.

// checkLogpoint refuses a logpoint where its log could not be read: the
// Python runs in lldb, which writes the log on its own host.
func (b *Backend) checkLogpoint(spec debugger.BreakpointSpec) error {
	if spec.LogMessage == "" {
		return nil
	}
	b.mu.Lock()
	remote := b.host != ""
	b.mu.Unlock()
	switch {
	case remote:
		return fmt.Errorf("logpoints on another host with the lldb backend (its lldb would write the log there); use backend dap: %w", debugger.ErrUnsupported)
	case b.cfg.Dir == "":
		return fmt.Errorf("logpoints: the session has no directory for its event log: %w", debugger.ErrUnsupported)
	}
	return nil
}

// makeLogpoint turns lldb's breakpoint lldbID into a logpoint for our next
// id (the op lock is held, so it is the one it gets).
func (b *Backend) makeLogpoint(ctx context.Context, lldbID int, msg string) error {
	b.mu.Lock()
	id := b.nextID + 1
	if b.book == nil {
		b.book = debugger.NewLogBook(b.cfg.Dir)
	}
	path := b.book.Path()
	b.mu.Unlock()
	add, err := debugger.LLDBLogpointAdd(lldbID, id, path, msg)
	if err != nil {
		return err
	}
	for _, cmd := range []string{debugger.LLDBLogpointLoad(), add, debugger.LLDBLogpointCommand(lldbID)} {
		if _, err := b.runChecked(ctx, cmd); err != nil {
			_, _ = b.run(ctx, "breakpoint delete "+strconv.Itoa(lldbID), nil)
			return fmt.Errorf("making breakpoint a logpoint: %w", err)
		}
	}
	return nil
}

// Logpoints implements debugger.LogpointBackend.
func (b *Backend) Logpoints() *debugger.LogBook {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.book
}

// hasLogpoint reports a logpoint among the session's breakpoints.
func (b *Backend) hasLogpoint() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.hasLogpointLocked()
}

// hasLogpointLocked is hasLogpoint with b.mu held.
func (b *Backend) hasLogpointLocked() bool {
	for _, bp := range b.bps {
		if bp.Spec.LogMessage != "" {
			return true
		}
	}
	return false
}

// pauseWait bounds each wait for the stop a pause makes amid logpoint hits.
const pauseWait = 2 * time.Second

// pauseAmidLogpoints pauses a target whose logpoints may be hit as it
// runs. lldb stops privately for each hit while the logpoint's Python
// runs, and an interrupt that meets it there fails ("Process is not
// running") or reads as a stop at the logpoint, which the logpoint then
// lets go on. So the logpoints are first told to stop at their next hit
// (logpoint.py's triage_lp_stop); then an interrupt stops the target
// wherever else it is. A callback reads the flag as it returns: one that
// read it before it was set let the target run on before the interrupt
// came, so either way the target stops, and lldb's own status, waited for,
// says where. The stop, at a logpoint or anywhere, is the pause.
func (b *Backend) pauseAmidLogpoints(ctx context.Context) (debugger.State, error) {
	b.mu.Lock()
	b.pausing = true // the stops from here on are the pause's
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.pausing = false
		b.mu.Unlock()
	}()
	if _, err := b.runChecked(ctx, "script triage_lp_stop = True"); err != nil {
		return b.State(), fmt.Errorf("pause: telling the logpoints to stop: %w", err)
	}
	defer func() { _, _ = b.run(context.WithoutCancel(ctx), "script triage_lp_stop = False", nil) }()
	var st debugger.State
	for range 3 {
		out, err := b.run(ctx, "process interrupt", stopReport())
		if err != nil {
			return b.State(), err
		}
		b.observe(out)
		if st, err = b.watch(ctx, "process status", pauseWait); err == nil && st.Status != debugger.StatusRunning {
			break
		} else if !errors.Is(err, debugger.ErrTimeout) {
			return st, err
		}
	}
	if st.Status == debugger.StatusRunning {
		return st, fmt.Errorf("pause: the target still runs after three interrupts: %w", debugger.ErrTimeout)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if stop := b.state.LastStop; stop != nil && b.state.Status == debugger.StatusStopped && b.isPauseStop(stop) {
		stop.Reason = debugger.StopPause
	}
	return b.copyState(), nil
}

// isPauseStop reports a stop a pause made: the interrupt's (a trace or
// SIGSTOP stop) or a logpoint's. A breakpoint, a watch or a real signal
// that won the race stays itself. b.mu is held.
func (b *Backend) isPauseStop(stop *debugger.Stop) bool {
	switch stop.Reason {
	case debugger.StopStep, debugger.StopOther, debugger.StopPause:
		return true
	case debugger.StopBreakpoint:
		for _, id := range stop.BreakpointIDs {
			if b.bps[id].Spec.LogMessage == "" {
				return false
			}
		}
		return len(stop.BreakpointIDs) > 0
	}
	return false
}

// passingStop reports output whose last report is a stop lldb makes by
// itself as the target runs through a logpoint (its breakpoint, the step
// over it, the interrupt it meets) rather than one the target stays in:
// `process status` shows one when it lands while a logpoint's Python runs.
// It is one only while the target is known to run with logpoints and no
// pause is under way (a pause's stop at a logpoint is real).
func (b *Backend) passingStop(out string) bool {
	st, ok := latestState(out)
	if !ok || st.Status != debugger.StatusStopped || st.LastStop == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.passingStopLocked(st.LastStop, out)
}

// passingStopLocked is passingStop of a parsed stop (lldb's ids); b.mu is
// held. A stop of an unknown kind that lldb names (an exec, say) is real.
func (b *Backend) passingStopLocked(parsed *debugger.Stop, out string) bool {
	if b.pausing || b.state.Status != debugger.StatusRunning || !b.hasLogpointLocked() {
		return false
	}
	stop := *parsed
	stop.Watch = nil // ours reads a watch's values: not for a copy
	b.ours(&stop, out)
	return b.isPauseStop(&stop) && (stop.Reason != debugger.StopOther || stop.Description == "")
}
