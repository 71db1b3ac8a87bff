package lldbcli

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
// our next id; the op lock is held, so the next id is the one it gets.
func (b *Backend) addSoftWatch(ctx context.Context, expr string) error {
	b.mu.Lock()
	id := b.nextID + 1
	b.mu.Unlock()
	return debugger.AddSoftWatch(ctx, b.runChecked, id, expr)
}

func (b *Backend) hasSoftWatch() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ref := range b.refs {
		if ref.soft {
			return true
		}
	}
	return false
}

// continueSoft continues under software watches: softwatch.py steps the
// target until a watched value changes (a watchpoint stop at the line that
// wrote), a breakpoint's location is reached, the target stops by itself
// (lldb's own report then), or the step limit or the wait runs out (an
// error saying so, the target stopped). The op lock is held.
func (b *Backend) continueSoft(ctx context.Context, wait time.Duration) (debugger.State, error) {
	if wait <= 0 {
		wait = defaultWait
	}
	limit := b.cfg.WatchSteps
	if limit <= 0 {
		limit = debugger.DefaultWatchSteps
	}
	b.mu.Lock()
	b.moved = true
	b.mu.Unlock()
	rctx, cancel := context.WithTimeout(ctx, wait+commandWait)
	defer cancel()
	out, err := b.run(rctx, debugger.LLDBSoftWatchRun(limit, wait), nil)
	if err != nil {
		return b.State(), err
	}
	r, perr := debugger.ParseSoftWatch(out)
	st, err := b.refresh(ctx)
	switch {
	case err != nil:
		return st, err
	case perr != nil:
		return st, perr
	case r.Kind == "limit" || r.Kind == "time":
		return st, debugger.SoftWatchLimitError(r, limit, wait)
	case r.Kind == "other" || st.Status != debugger.StatusStopped:
		return st, nil
	}
	thread := 0
	if st.LastStop != nil {
		thread = st.LastStop.ThreadID
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.Kind == "breakpoint" {
		id := b.ourID("breakpoint", r.BP)
		b.state.LastStop = &debugger.Stop{Reason: debugger.StopBreakpoint, ThreadID: thread, BreakpointIDs: []int{id}, At: time.Now(),
			Description: fmt.Sprintf("breakpoint %d (its location reached while watching by single-stepping)", r.BP)}
		return b.copyState(), nil
	}
	bp := b.bps[r.ID]
	b.state.LastStop = debugger.SoftWatchStop(r, bp.Spec.Watch, thread)
	if _, ok := b.bps[r.ID]; ok {
		bp.Value = r.New
		b.bps[r.ID] = bp
	}
	return b.copyState(), nil
}
