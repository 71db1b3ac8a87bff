package dap

import (
	"context"
	"fmt"
	"slices"

	godap "github.com/google/go-dap"

	"github.com/triage-dev/triage/internal/debugger"
)

// Data breakpoints: the protocol's watchpoints (dataBreakpointInfo, then
// setDataBreakpoints with the whole set), used where the adapter offers
// them (supportsDataBreakpoints: lldb-dap 18 and later, not lldb-vscode 16,
// whose adapter aborts on dataBreakpointInfo) and the host delivers
// hardware watchpoints. Where it does not, lldb-dap's data breakpoint is
// set, verified, and never fires (lldb-dap-22 on a Firecracker guest), so
// the software watch through evaluate is used instead (catch.go).

// dataStopReason is the stopped event's reason for a data breakpoint; its
// hitBreakpointIds are data breakpoint ids, not source breakpoint ids.
const dataStopReason = "data breakpoint"

// setDataBreakpoint asks the adapter for expr's data id in the top frame
// and sends the data breakpoints with it added. Caller holds bpMu.
func (b *Backend) setDataBreakpoint(ctx context.Context, bp *breakpoint, access debugger.Access) error {
	fr, err := b.frameOf(ctx, 0)
	if err != nil {
		return fmt.Errorf("watch %q: %w", bp.Spec.Watch, err)
	}
	name := bp.Spec.Watch
	if b.flavorKind() == KindLLDB {
		name = "&(" + name + ")" // lldb-dap takes a frame expression as the address to watch
	}
	var info godap.DataBreakpointInfoResponseBody
	if err := b.call(ctx, "dataBreakpointInfo", godap.DataBreakpointInfoArguments{Name: name, FrameId: fr.ID}, &info); err != nil {
		return fmt.Errorf("watch %q: %w", bp.Spec.Watch, err)
	}
	id, _ := info.DataId.(string)
	if id == "" {
		return fmt.Errorf("watch %q: the adapter cannot watch it: %s (watch an lvalue: a variable, a field, an element, *pointer)", bp.Spec.Watch, info.Description)
	}
	if !slices.Contains(info.AccessTypes, godap.DataBreakpointAccessType(accessType(access))) && len(info.AccessTypes) > 0 {
		return fmt.Errorf("watch %q for %s: the adapter offers only %v there: %w", bp.Spec.Watch, access, info.AccessTypes, debugger.ErrUnsupported)
	}
	bp.dataID, bp.access = id, accessType(access)
	if v, err := b.Evaluate(ctx, bp.Spec.Watch, 0); err == nil {
		bp.Value = v.Value
	}
	bp.Via = "the adapter's data breakpoint (" + info.Description + ")"
	return b.syncData(ctx, bp)
}

func accessType(a debugger.Access) string {
	switch a {
	case debugger.AccessRead:
		return "read"
	case debugger.AccessReadWrite:
		return "readWrite"
	}
	return "write"
}

// syncData sends the data breakpoints in use, with extra (being added,
// nil: none) and without one removed already, and records the adapter's
// ids. Caller holds bpMu.
func (b *Backend) syncData(ctx context.Context, extra *breakpoint) error {
	b.mu.Lock()
	var set []*breakpoint
	for _, bp := range b.bps {
		if bp.dataID != "" {
			set = append(set, bp)
		}
	}
	b.mu.Unlock()
	if extra != nil {
		set = append(set, extra)
	}
	args := godap.SetDataBreakpointsArguments{Breakpoints: []godap.DataBreakpoint{}}
	for _, bp := range set {
		args.Breakpoints = append(args.Breakpoints, godap.DataBreakpoint{DataId: bp.dataID, AccessType: godap.DataBreakpointAccessType(bp.access)})
	}
	var body godap.SetDataBreakpointsResponseBody
	if err := b.call(ctx, "setDataBreakpoints", args, &body); err != nil {
		return fmt.Errorf("setting data breakpoints: %w", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, a := range body.Breakpoints {
		if i >= len(set) {
			break
		}
		set[i].dataAdapterID = a.Id
		if set[i] == extra && !a.Verified {
			return fmt.Errorf("watch %q: the adapter did not set it: %s", extra.Spec.Watch, a.Message)
		}
	}
	return nil
}

// ourDataIDs names the data breakpoints of a data breakpoint stop's
// adapter ids by our ids, or all of ours when any is named. b.mu is held.
func (b *Backend) ourDataIDs(adapterIDs []int, any bool) []int {
	var ids []int
	for _, bp := range b.bps {
		if bp.dataID != "" && (any || slices.Contains(adapterIDs, bp.dataAdapterID)) {
			ids = append(ids, bp.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// markData makes a stop at one of our data breakpoints a watch stop
// (settleWatch completes it). b.mu is held.
func (b *Backend) markData(stop *debugger.Stop) {
	for _, id := range stop.BreakpointIDs {
		if bp := b.bps[id]; bp != nil && bp.dataID != "" {
			stop.Watch = &debugger.WatchHit{ID: bp.ID, Expr: bp.Spec.Watch}
			stop.Reason = debugger.StopBreakpoint
			return
		}
	}
}

// changedData narrows a data breakpoint stop that names several of ours
// (or that the adapter named none of) to the one whose value changed: the
// stop's watch (with the value read), and its only breakpoint id. It
// returns the watch to settle.
func (b *Backend) changedData(ctx context.Context, stop *debugger.Stop, w debugger.WatchHit) debugger.WatchHit {
	type candidate struct {
		id         int
		expr, last string
	}
	var cands []candidate
	b.mu.Lock()
	for _, id := range stop.BreakpointIDs {
		if bp := b.bps[id]; bp != nil && bp.dataID != "" {
			cands = append(cands, candidate{bp.ID, bp.Spec.Watch, bp.Value})
		}
	}
	b.mu.Unlock()
	if len(cands) < 2 {
		return w
	}
	for _, c := range cands {
		if v, err := b.Evaluate(ctx, c.expr, 0); err == nil && v.Value != c.last {
			stop.BreakpointIDs = []int{c.id}
			return debugger.WatchHit{ID: c.id, Expr: c.expr, New: v.Value}
		}
	}
	return w
}

// topLine is the top frame's place: where an adapter other than lldb's
// stopped after a write (gdb reports the writing statement's line).
func (b *Backend) topLine(ctx context.Context) (string, int) {
	fr, err := b.frameOf(ctx, 0)
	if err != nil {
		return "", 0
	}
	return fr.File, fr.Line
}
