package debug

import (
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// stopResult renders a session's state (debugger.StopReport), the
// logpoint hits since the last call, and the next calls; a crash or a dead
// debugger is a failed call.
func (h *handler) stopResult(ctx context.Context, b debugger.Backend, id string, st debugger.State, note string) (catalog.Result[StopOutput], error) {
	info, _ := h.svc.Debugger().Info(ctx, id)
	r := debugger.Report(ctx, b, info, st)
	out := StopOutput{SessionID: id, Backend: r.Backend, State: wire.DebugStateOf(st), Frames: wire.DebugFramesOf(r.Frames),
		Breakpoints: wire.BreakpointsOf(r.Breakpoints), CrashSite: wire.CrashSiteOf(r.Site)}
	out.State.Threads = wire.DebugThreadsOf(r.Threads)
	var sb strings.Builder
	r.Info.ID = id
	r.WriteText(&sb, note)
	h.writeLogpoints(ctx, &sb, b, id)
	writeNextCalls(&sb, id, st.Status, info.Core != "")
	outcome := catalog.OK
	if st.LastStop.Crashed() || st.Status == debugger.StatusDead {
		outcome = catalog.Failed
	}
	return catalog.Result[StopOutput]{Text: sb.String(), Output: out, Outcome: outcome}, nil
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
