package debug

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

type breakpointParams struct {
	sessionParam
	Location  string `json:"location" jsonschema:"function, file:line, [r|a]watch:EXPR, catch:c++|go-panic|rust-panic|abort|signal:SIG"`
	Condition string `json:"condition,omitempty"`
	HitCount  int    `json:"hit_count,omitempty" jsonschema:"stop from this hit on"`
	// LogMessage is listed with workflow observe only (tools/list's budget).
	LogMessage string `json:"log_message,omitempty" jsonschema:"a logpoint: record this text per hit, {expr} evaluated; never stops"`
}

// BreakpointOutput is the breakpoint as the debugger resolved it.
type BreakpointOutput struct {
	SessionID  string          `json:"session_id" jsonschema:"the session"`
	Breakpoint wire.Breakpoint `json:"breakpoint" jsonschema:"id, verified, resolved location"`
}

func (h *handler) breakpointAdd(ctx context.Context, c *catalog.Call, in breakpointParams) (catalog.Result[BreakpointOutput], error) {
	spec, err := debugger.NewBreakpointSpec(in.Location, in.Condition, in.HitCount, in.LogMessage)
	if err != nil {
		return catalog.Result[BreakpointOutput]{}, err
	}
	b, id, err := h.backend(ctx, in.SessionID)
	if err != nil {
		return catalog.Result[BreakpointOutput]{}, err
	}
	bp, err := b.AddBreakpoint(ctx, spec)
	if err != nil {
		return catalog.Result[BreakpointOutput]{}, describe(err)
	}
	info, _ := h.svc.Debugger().Info(ctx, id)
	text := bp.Describe(spec, info.SSHHost)
	if spec.LogMessage != "" {
		text += "; a logpoint: hits are recorded and the target goes on (debug_continue and debug_stack tell of them)"
	}
	if spec.Watch != "" && bp.Via != "" {
		text += "; " + bp.Via // an emulated watch says so: it is slow
	}
	return catalog.Result[BreakpointOutput]{Text: text + "\n", Output: BreakpointOutput{SessionID: id, Breakpoint: wire.BreakpointOf(bp)}}, nil
}

type breakpointRemoveParams struct {
	sessionParam
	ID int `json:"id"`
}

func (h *handler) breakpointRemove(ctx context.Context, c *catalog.Call, in breakpointRemoveParams) (catalog.Result[StopOutput], error) {
	b, id, err := h.backend(ctx, in.SessionID)
	if err != nil {
		return catalog.Result[StopOutput]{}, err
	}
	if err := b.RemoveBreakpoint(ctx, in.ID); err != nil {
		return catalog.Result[StopOutput]{}, describe(err)
	}
	out := StopOutput{SessionID: id, Backend: b.Name(), State: wire.DebugStateOf(b.State()), Breakpoints: wire.BreakpointsOf(b.Breakpoints())}
	return catalog.Result[StopOutput]{Text: fmt.Sprintf("BREAKPOINT %d REMOVED (%d left)\n", in.ID, len(out.Breakpoints)), Output: out}, nil
}

// defaultWait is how long debug_continue and debug_step wait for the next
// stop when wait_s is not given; wait_s 0 returns at once.
const defaultWait = 10 * time.Second

type continueParams struct {
	sessionParam
	WaitS  *duration.Seconds `json:"wait_s,omitempty" jsonschema:"default 10; 0: return at once"`
	Thread int               `json:"thread,omitempty" jsonschema:"default: all"`
}

func (h *handler) resume(ctx context.Context, c *catalog.Call, in continueParams) (catalog.Result[StopOutput], error) {
	wait, err := waitArg(in.WaitS)
	if err != nil {
		return catalog.Result[StopOutput]{}, err
	}
	b, id, err := h.backend(ctx, in.SessionID)
	if err != nil {
		return catalog.Result[StopOutput]{}, err
	}
	st, err := b.Continue(ctx, debugger.ContinueOptions{Thread: in.Thread, Wait: wait})
	return h.waitedResult(ctx, b, id, st, err, wait)
}

// waitArg reads wait_s: absent is defaultWait, 0 is no wait.
func waitArg(s *duration.Seconds) (time.Duration, error) {
	if s == nil {
		return defaultWait, nil
	}
	if *s == 0 {
		return 0, s.Check("wait_s", 0)
	}
	return s.Duration("wait_s", defaultWait, 0)
}

// waitedResult renders the state after a call that waited for a stop; a
// wait that ran out is no failure: the target runs on, and the result
// says so and what to call.
func (h *handler) waitedResult(ctx context.Context, b debugger.Backend, id string, st debugger.State, err error, wait time.Duration) (catalog.Result[StopOutput], error) {
	note := ""
	switch {
	case err == nil:
	case errors.Is(err, debugger.ErrTimeout):
		note = fmt.Sprintf("no stop within %gs; the target is still running", wait.Seconds())
	default:
		return catalog.Result[StopOutput]{}, describe(err)
	}
	return h.stopResult(ctx, b, id, st, note)
}

type stepParams struct {
	sessionParam
	Kind   string            `json:"kind,omitempty" jsonschema:"over (default), in or out"`
	Thread int               `json:"thread,omitempty"`
	WaitS  *duration.Seconds `json:"wait_s,omitempty" jsonschema:"default 10"`
}

func (h *handler) step(ctx context.Context, c *catalog.Call, in stepParams) (catalog.Result[StopOutput], error) {
	wait, err := waitArg(in.WaitS)
	if err != nil {
		return catalog.Result[StopOutput]{}, err
	}
	kind := debugger.StepKind(in.Kind)
	switch kind {
	case "":
		kind = debugger.StepOver
	case debugger.StepOver, debugger.StepIn, debugger.StepOut:
	default:
		return catalog.Result[StopOutput]{}, fault.Usagef("kind %q: use over, in or out", in.Kind)
	}
	b, id, err := h.backend(ctx, in.SessionID)
	if err != nil {
		return catalog.Result[StopOutput]{}, err
	}
	st, err := b.Step(ctx, kind, in.Thread, wait)
	return h.waitedResult(ctx, b, id, st, err, wait)
}

func (h *handler) pause(ctx context.Context, c *catalog.Call, in sessionParam) (catalog.Result[StopOutput], error) {
	b, id, err := h.backend(ctx, in.SessionID)
	if err != nil {
		return catalog.Result[StopOutput]{}, err
	}
	st, err := b.Pause(ctx)
	if err != nil {
		return catalog.Result[StopOutput]{}, describe(err)
	}
	return h.stopResult(ctx, b, id, st, "")
}
