package dap

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"

	godap "github.com/google/go-dap"

	"github.com/triage-dev/triage/internal/debugger"
)

// lldbFilters are lldb-dap's exception filters for our kinds.
var lldbFilters = map[string]string{"c++": "cpp_throw"}

var lldbBreakpointHitRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^breakpoint (\d+)\.\d+`) })

// addSpecial sets a watch or an exception stop: by the adapter's own
// request where its capabilities offer one, else through the debugger's
// command language (lldb's, by evaluate) or a function breakpoint on the
// runtime function, saying so in Via; else ErrUnsupported, saying why.
func (b *Backend) addSpecial(ctx context.Context, spec debugger.BreakpointSpec) (debugger.Breakpoint, error) {
	bp := &breakpoint{Breakpoint: debugger.Breakpoint{Kind: spec.Kind(), Spec: spec, Verified: true}}
	var err error
	if spec.Watch != "" {
		err = b.setWatch(ctx, bp)
	} else {
		err = b.setCatch(ctx, bp)
	}
	if err != nil {
		return debugger.Breakpoint{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextBP++
	bp.ID = b.nextBP
	b.bps[bp.ID] = bp
	return bp.Breakpoint, nil
}

func (b *Backend) setCatch(ctx context.Context, bp *breakpoint) error {
	e, _ := debugger.ParseException(bp.Spec.Exception)
	caps := b.Capabilities()
	kind := b.flavorKind()
	if e.Kind == "signal" {
		bp.signal = e.Signal
		switch kind {
		case KindLLDB:
			bp.Via = "lldb's process handle, through evaluate"
			_, err := b.RawCommand(ctx, debugger.LLDBSignalCommand(e.Signal, true))
			return err
		case KindGDB:
			bp.Via = "gdb's handle, through evaluate"
			_, err := b.RawCommand(ctx, "handle "+e.Signal+" stop print")
			return err
		}
		return fmt.Errorf("exception %s: %s's adapter has no signal stops: %w", e, kind, debugger.ErrUnsupported)
	}
	for _, f := range caps.ExceptionBreakpointFilters {
		if f.Filter == lldbFilters[e.Kind] {
			bp.filter = f.Filter
			b.bpMu.Lock()
			defer b.bpMu.Unlock()
			return b.syncFilters(ctx, bp)
		}
	}
	if !caps.SupportsFunctionBreakpoints {
		return fmt.Errorf("exception %s: the %s adapter offers no filter for it in its exceptionBreakpointFilters, nor function breakpoints: %w", e, b.adapterLabel(), debugger.ErrUnsupported)
	}
	bp.fn = e.Function()
	bp.Via = fmt.Sprintf("function breakpoint on %s (the %s adapter's exceptionBreakpointFilters have none for %s)", bp.fn, b.adapterLabel(), e)
	b.bpMu.Lock()
	defer b.bpMu.Unlock()
	b.mu.Lock()
	b.nextBP++
	bp.ID = b.nextBP
	b.bps[bp.ID] = bp
	b.mu.Unlock()
	err := b.sync(ctx, "")
	b.mu.Lock()
	delete(b.bps, bp.ID) // addSpecial registers it
	b.nextBP--
	b.mu.Unlock()
	return err
}

// syncFilters sends the adapter's exception filters in use, with extra
// (being added) and without none removed. Caller holds bpMu.
func (b *Backend) syncFilters(ctx context.Context, extra *breakpoint) error {
	b.mu.Lock()
	var filters []string
	for _, bp := range b.bps {
		if bp.filter != "" {
			filters = append(filters, bp.filter)
		}
	}
	b.mu.Unlock()
	if extra != nil {
		filters = append(filters, extra.filter)
	}
	return b.call(ctx, "setExceptionBreakpoints", godap.SetExceptionBreakpointsArguments{Filters: nonNilStrings(filters)}, nil)
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// setWatch sets a watchpoint: by the adapter's data breakpoints where it
// offers them (lldb-dap 18 and later) and the host delivers hardware
// watchpoints; else through lldb's command language (lldb-vscode-16 has
// no data breakpoints), emulated where the host delivers none; another
// adapter is refused naming its capability.
func (b *Backend) setWatch(ctx context.Context, bp *breakpoint) error {
	soft, why, note := b.softWatchNeeded(ctx)
	access, _ := debugger.ParseAccess(bp.Spec.Access)
	caps, kind := b.capsAndKind()
	if note != "" {
		defer func() { bp.Via += "; " + note }()
	}
	switch {
	case caps.SupportsDataBreakpoints && !soft:
		b.bpMu.Lock()
		defer b.bpMu.Unlock()
		return b.setDataBreakpoint(ctx, bp, access)
	case kind != KindLLDB && soft:
		return fmt.Errorf("watch: %s, and %s's adapter (supportsDataBreakpoints %t) has no command language triage emulates a watch in: %w",
			why, kind, caps.SupportsDataBreakpoints, debugger.ErrUnsupported)
	case kind != KindLLDB:
		return fmt.Errorf("watch: %s: %w", b.lacks("data breakpoints", "supportsDataBreakpoints"), debugger.ErrUnsupported)
	}
	if soft && access != debugger.AccessWrite {
		return debugger.SoftWatchReadError(access, why)
	}
	out, err := b.RawCommand(ctx, debugger.LLDBWatchCommand(bp.Spec.Watch, access))
	if err != nil {
		return fmt.Errorf("watch %q: %w", bp.Spec.Watch, err)
	}
	id, value, err := debugger.LLDBWatchSet(out)
	if err != nil {
		return fmt.Errorf("watch %q: lldb: %s (watch an lvalue: a variable, a field, an element, *pointer)", bp.Spec.Watch, out)
	}
	bp.lldbWatch, bp.Value = id, value
	bp.Via = "lldb's watchpoint set, through evaluate (" + b.lacks("data breakpoints", "supportsDataBreakpoints") + ")"
	if soft {
		if err := b.addSoftWatch(ctx, bp.Spec.Watch); err != nil {
			_, _ = b.RawCommand(ctx, "watchpoint delete "+strconv.Itoa(id))
			return err
		}
		bp.soft = true
		bp.Via = why + "; through evaluate"
		if caps.SupportsDataBreakpoints {
			bp.Via += " (the adapter's data breakpoints are not used: they would be set and never fire)"
		}
	}
	return nil
}

// unset removes a breakpoint from the adapter (bp is out of the registry).
// Caller holds bpMu.
func (b *Backend) unset(ctx context.Context, bp *breakpoint) error {
	switch {
	case bp.filter != "":
		return b.syncFilters(ctx, nil)
	case bp.dataID != "":
		return b.syncData(ctx, nil)
	case bp.lldbWatch != 0:
		if bp.soft {
			if _, err := b.RawCommand(ctx, debugger.LLDBSoftWatchDelete(bp.ID)); err != nil {
				return err
			}
		}
		_, err := b.RawCommand(ctx, "watchpoint delete "+strconv.Itoa(bp.lldbWatch))
		return err
	case bp.signal != "" && b.flavorKind() == KindLLDB:
		_, err := b.RawCommand(ctx, debugger.LLDBSignalCommand(bp.signal, false))
		return err
	case bp.signal != "":
		_, err := b.RawCommand(ctx, "handle "+bp.signal+" nostop")
		return err
	}
	return b.sync(ctx, bp.file())
}

func (b *Backend) flavorKind() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.fl.kind
}

// markOurs names what a stop hit when the event's hitBreakpointIds did
// not (lldb-vscode's description "breakpoint 2.1", "watchpoint 1"; an
// exception filter's stop), then marks an exception stop. b.mu is held.
func (b *Backend) markOurs(stop *debugger.Stop, reason string) {
	if lid := debugger.LLDBWatchHit(stop.Description); lid != 0 {
		for _, bp := range b.bps {
			if bp.lldbWatch == lid {
				stop.Watch = &debugger.WatchHit{ID: bp.ID, Expr: bp.Spec.Watch}
				stop.BreakpointIDs = []int{bp.ID}
			}
		}
	}
	if m := lldbBreakpointHitRE().FindStringSubmatch(stop.Description); m != nil && len(stop.BreakpointIDs) == 0 {
		aid, _ := strconv.Atoi(m[1])
		stop.BreakpointIDs = b.ourIDs([]int{aid})
	}
	var all []debugger.Breakpoint
	for _, bp := range b.bps {
		if reason == "exception" && bp.filter != "" && stop.Signal == "" && len(stop.BreakpointIDs) == 0 {
			stop.BreakpointIDs = []int{bp.ID}
		}
		if bp.signal != "" && bp.signal == stop.Signal {
			stop.BreakpointIDs = append(stop.BreakpointIDs, bp.ID)
		}
		all = append(all, bp.Breakpoint)
	}
	debugger.MarkCatch(stop, all)
}

// settleWatch completes a watchpoint's stop through lldb's command
// language: the new value read now, the old the value last seen, and the
// line that wrote (the instruction's before the pc).
func (b *Backend) settleWatch(ctx context.Context, st debugger.State) debugger.State {
	if st.Status != debugger.StatusStopped || st.LastStop == nil || st.LastStop.Watch == nil || st.LastStop.Watch.Line != 0 {
		return st
	}
	w := b.changedData(ctx, st.LastStop, *st.LastStop.Watch)
	if b.flavorKind() != KindLLDB {
		w.File, w.Line = b.topLine(ctx)
	} else if out, err := b.RawCommand(ctx, debugger.LLDBWrittenAtCommand); err == nil {
		w.File, w.Line = debugger.LLDBWrittenAt(out)
	}
	if w.New == "" { // else changedData read it
		if v, err := b.Evaluate(ctx, w.Expr, 0); err == nil {
			w.New = v.Value
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if bp := b.bps[w.ID]; bp != nil {
		w.Old, bp.Value = bp.Value, w.New
	}
	if b.state.LastStop != nil && b.state.LastStop.Watch != nil {
		b.state.LastStop.Watch = &w
		b.state.LastStop.BreakpointIDs = st.LastStop.BreakpointIDs
		b.watchStopped = b.state.Status == debugger.StatusStopped
	}
	st.LastStop.Watch = &w
	return st
}

// continueFromWatch is a continue's first step from a hardware watch's
// stop; ok says it (and err) is the continue's answer, else the continue
// goes on.
// Under lldb, a breakpoint whose location is the pc that stop left is
// reported as reached (debugger.LLDBBreakpointAtWatchStop), and the target
// does not run. Under dlv, the instruction at the pc is stepped first
// (stepPastWatchedWrite).
func (b *Backend) continueFromWatch(ctx context.Context) (st debugger.State, ok bool, err error) {
	b.mu.Lock()
	at := b.watchStopped && b.state.Status == debugger.StatusStopped
	b.watchStopped = false
	kind := b.fl.kind
	b.mu.Unlock()
	switch {
	case !at:
		return st, false, nil
	case kind == KindDlv:
		return b.stepPastWatchedWrite(ctx)
	case kind != KindLLDB:
		return st, false, nil
	}
	lid, err := debugger.LLDBBreakpointAtWatchStop(ctx, b.RawCommand)
	if err != nil || lid == 0 {
		return st, false, nil // none found: lldb's own continue
	}
	b.mu.Lock()
	ids := b.ourIDs([]int{lid})
	if len(ids) == 0 || b.state.Status != debugger.StatusStopped {
		b.mu.Unlock()
		return st, false, nil // a raw command's breakpoint: lldb's own continue
	}
	b.state.LastStop = &debugger.Stop{Reason: debugger.StopBreakpoint, ThreadID: b.thread, BreakpointIDs: ids, At: time.Now(),
		Description: debugger.WatchStopBreakpointDescription(lid)}
	b.bump()
	b.mu.Unlock()
	return b.State(), true, nil
}

// stepPastWatchedWrite steps the one instruction at a dlv data breakpoint
// stop's pc and reports a write it made to a watched value as that watch's
// stop. dlv resumes from such a stop by stepping that instruction itself,
// and a watchpoint it triggers then is never reported (two watched writes
// in a row lose the second). ok is false when the step wrote nothing
// watched (or could not be made): the continue goes on from there.
func (b *Backend) stepPastWatchedWrite(ctx context.Context) (debugger.State, bool, error) {
	type watched struct {
		id         int
		expr, last string
	}
	var ws []watched
	b.mu.Lock()
	gen, thread, granular := b.stopGen, b.thread, b.caps.SupportsSteppingGranularity
	for _, bp := range b.bps {
		if bp.dataID != "" {
			ws = append(ws, watched{bp.ID, bp.Spec.Watch, bp.Value})
		}
	}
	b.mu.Unlock()
	if len(ws) == 0 || !granular {
		return debugger.State{}, false, nil
	}
	if err := b.call(ctx, "next", godap.NextArguments{ThreadId: thread, Granularity: "instruction"}, nil); err != nil {
		return debugger.State{}, false, nil
	}
	b.markRunning(gen)
	st, err := b.waitStop(ctx, gen, DefaultTimeout)
	if err != nil || st.Status != debugger.StatusStopped || st.LastStop == nil || st.LastStop.Reason != debugger.StopStep {
		return st, true, err // it ended, or stopped for a reason of its own: that is the answer
	}
	for _, w := range ws {
		v, err := b.Evaluate(ctx, w.expr, 0)
		if err != nil || v.Value == w.last {
			continue
		}
		b.mu.Lock()
		stop := b.state.LastStop
		if stop == nil || b.state.Status != debugger.StatusStopped {
			b.mu.Unlock()
			return b.State(), true, nil // it went on meanwhile: what it is now is the answer
		}
		stop.Reason, stop.BreakpointIDs = debugger.StopBreakpoint, []int{w.id}
		stop.Description = fmt.Sprintf("watchpoint %d (written by the instruction its last stop left the target on)", w.id)
		stop.Watch = &debugger.WatchHit{ID: w.id, Expr: w.expr}
		b.mu.Unlock()
		return b.settleWatch(ctx, b.State()), true, nil
	}
	return debugger.State{}, false, nil
}
