package lldbcli

import (
	"context"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
)

// ours rewrites a parsed stop's lldb ids (breakpoints, a watchpoint) as
// ours, with a watchpoint's expression and the old and new values lldb
// printed in out, and marks an exception breakpoint's or a watched
// signal's stop. An id we did not set (a raw command's) is left out.
// b.mu is held.
func (b *Backend) ours(stop *debugger.Stop, out string) {
	var ids []int
	for _, lid := range stop.BreakpointIDs {
		if id := b.ourID("breakpoint", lid); id != 0 {
			ids = append(ids, id)
		}
	}
	if w := stop.Watch; w != nil {
		w.ID = b.ourID("watchpoint", w.ID)
		w.Expr = b.bps[w.ID].Spec.Watch
		w.Old, w.New = debugger.LLDBWatchValues(out)
		if w.ID == 0 {
			stop.Watch = nil
		} else {
			ids = append(ids, w.ID)
		}
	}
	for id, ref := range b.refs {
		if ref.kind == "signal" && ref.signal == stop.Signal {
			ids = append(ids, id)
		}
	}
	stop.BreakpointIDs = ids
	bps := make([]debugger.Breakpoint, 0, len(b.bps))
	for _, bp := range b.bps {
		bps = append(bps, bp)
	}
	debugger.MarkCatch(stop, bps)
}

// ourID is our id of lldb's breakpoint or watchpoint lid, 0 if none.
func (b *Backend) ourID(kind string, lid int) int {
	for id, ref := range b.refs {
		if ref.kind == kind && ref.id == lid {
			return id
		}
	}
	return 0
}

// settleWatch completes a watchpoint's stop: the values lldb did not
// print (the old one is the value last seen, the new one read now) and
// the line that wrote, the one of the instruction before the pc. The
// op lock is held.
func (b *Backend) settleWatch(ctx context.Context, st debugger.State) debugger.State {
	if st.Status != debugger.StatusStopped || st.LastStop == nil || st.LastStop.Watch == nil || st.LastStop.Watch.Line != 0 {
		return st
	}
	w := *st.LastStop.Watch
	if out, err := b.run(ctx, debugger.LLDBWrittenAtCommand, nil); err == nil {
		w.File, w.Line = debugger.LLDBWrittenAt(out)
	}
	b.mu.Lock()
	bp := b.bps[w.ID]
	b.mu.Unlock()
	if w.New == "" {
		if out, err := b.run(ctx, "frame variable -- "+w.Expr, nil); err == nil {
			if vs := parseVariables(out); len(vs) > 0 {
				w.New = vs[0].Value
			}
		}
	}
	if w.Old == "" {
		w.Old = bp.Value
	}
	bp.Value = w.New
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.bps[w.ID]; ok {
		b.bps[w.ID] = bp
	}
	if b.state.LastStop != nil {
		b.state.LastStop.Watch = &w
		b.watchStopped = true
	}
	return b.copyState()
}

// continueFromWatch is a continue's first step from a hardware
// watchpoint's stop: a breakpoint whose location is the pc that stop left
// is reported as reached (debugger.LLDBBreakpointAtWatchStop), and the
// target does not run. ok is false when there is none. The op lock is
// held.
func (b *Backend) continueFromWatch(ctx context.Context) (st debugger.State, ok bool) {
	b.mu.Lock()
	at := b.watchStopped && b.state.Status == debugger.StatusStopped
	b.watchStopped = false
	thread := 0
	if b.state.LastStop != nil {
		thread = b.state.LastStop.ThreadID
	}
	b.mu.Unlock()
	if !at {
		return st, false
	}
	lid, err := debugger.LLDBBreakpointAtWatchStop(ctx, b.runChecked)
	if err != nil || lid == 0 {
		return st, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	id := b.ourID("breakpoint", lid)
	if id == 0 {
		return st, false // a raw command's breakpoint: lldb's own continue
	}
	b.state.LastStop = &debugger.Stop{Reason: debugger.StopBreakpoint, ThreadID: thread, BreakpointIDs: []int{id}, At: time.Now(),
		Description: debugger.WatchStopBreakpointDescription(lid)}
	return b.copyState(), true
}
