package dap

import (
	"context"
	"fmt"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
)

// softWatchNeeded: see debugger.SoftWatchFor, and SoftWatchForHost for a
// remote session (probed on its host; note says when it could not be).
func (b *Backend) softWatchNeeded(ctx context.Context) (soft bool, why, note string) {
	b.mu.Lock()
	host, conn := b.host, b.ssh
	b.mu.Unlock()
	if conn != nil {
		return debugger.SoftWatchForHost(ctx, host, conn, b.cfg.SoftWatch)
	}
	soft, why = debugger.SoftWatchFor(false, b.cfg.SoftWatch)
	return soft, why, ""
}

// addSoftWatch registers the watch being added with softwatch.py under
// the id addSpecial will give it (bpMu serializes the adds).
func (b *Backend) addSoftWatch(ctx context.Context, expr string) error {
	b.mu.Lock()
	id := b.nextBP + 1
	b.mu.Unlock()
	return debugger.AddSoftWatch(ctx, b.RawCommand, id, expr)
}

func (b *Backend) hasSoftWatch() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, bp := range b.bps {
		if bp.soft {
			return true
		}
	}
	return false
}

// continueSoft continues under software watches: softwatch.py steps the
// target inside lldb-vscode's lldb, whose stepping the adapter does not
// report, so the stop it ends at is recorded here from its answer.
func (b *Backend) continueSoft(ctx context.Context, wait time.Duration) (debugger.State, error) {
	if wait <= 0 {
		wait = 20 * time.Second
	}
	limit := b.cfg.WatchSteps
	if limit <= 0 {
		limit = debugger.DefaultWatchSteps
	}
	rctx, cancel := context.WithTimeout(ctx, wait+DefaultTimeout) // the script ends by the wait
	defer cancel()
	out, err := b.RawCommand(rctx, debugger.LLDBSoftWatchRun(limit, wait))
	if err != nil {
		return b.State(), err
	}
	r, err := debugger.ParseSoftWatch(out)
	if err != nil {
		return b.State(), err
	}
	if r.Kind == "limit" || r.Kind == "time" {
		return b.State(), debugger.SoftWatchLimitError(r, limit, wait)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.state.LastStop = b.softStop(r)
	b.state.Status = debugger.StatusStopped
	if r.Kind == "other" && r.State == "exited" {
		b.state.Status = debugger.StatusExited
	}
	b.bump()
	st := b.state
	stop := *st.LastStop
	st.LastStop = &stop
	return st, nil
}

// softStop is the stop softwatch.py's answer r describes. b.mu is held.
func (b *Backend) softStop(r debugger.SoftWatchResult) *debugger.Stop {
	at := time.Now()
	switch {
	case r.Kind == "changed":
		stop := debugger.SoftWatchStop(r, "", b.thread)
		if bp := b.bps[r.ID]; bp != nil {
			stop.Watch.Expr, bp.Value = bp.Spec.Watch, r.New
		}
		return stop
	case r.Kind == "breakpoint" || r.BP != 0:
		return &debugger.Stop{Reason: debugger.StopBreakpoint, ThreadID: b.thread, BreakpointIDs: b.ourIDs([]int{r.BP}), At: at,
			Description: fmt.Sprintf("breakpoint %d (reached while watching by single-stepping)", r.BP)}
	case r.State == "exited":
		code := r.Exit
		return &debugger.Stop{Reason: debugger.StopExited, ExitCode: &code, At: at, Description: fmt.Sprintf("exited with status %d", code)}
	case r.Signal != "":
		return &debugger.Stop{Reason: debugger.StopSignal, Signal: r.Signal, ThreadID: b.thread, Description: r.Description, At: at}
	}
	return &debugger.Stop{Reason: debugger.StopOther, ThreadID: b.thread, Description: r.Description + " (while watching by single-stepping)", At: at}
}
