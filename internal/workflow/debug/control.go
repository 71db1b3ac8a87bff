package debug

import (
	"cmp"
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
	return catalog.Result[BreakpointOutput]{Text: breakpointText(spec, bp, info.SSHHost), Output: BreakpointOutput{SessionID: id, Breakpoint: wire.BreakpointOf(bp)}}, nil
}

// breakpointText words a breakpoint just set, a logpoint's hits and an
// emulated watch (it is slow), and how a watch or a logpoint was set when
// not as asked (a function logpoint at its first line).
func breakpointText(spec debugger.BreakpointSpec, bp debugger.Breakpoint, host string) string {
	text := bp.Describe(spec, host)
	if spec.LogMessage != "" {
		text += "; a logpoint: hits are recorded and the target goes on (debug_continue and debug_stack tell of them)"
	}
	if (spec.Watch != "" || spec.LogMessage != "") && bp.Via != "" {
		text += "; " + bp.Via
	}
	return text + "\n"
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
	return h.act(ctx, in.SessionID, waited(c, in.WaitS, wait), func(b debugger.Backend) (debugger.State, error) {
		return b.Continue(ctx, debugger.ContinueOptions{Thread: in.Thread, Wait: wait})
	})
}

// waitArg reads wait_s: absent is defaultWait, 0 is no wait.
func waitArg(s *duration.Seconds) (time.Duration, error) {
	switch {
	case s == nil:
		return defaultWait, nil
	case *s == 0:
		return 0, s.Check("wait_s", 0)
	}
	return s.Duration("wait_s", defaultWait, 0)
}

// waited says how long a wait for a stop lasted and which limit that was
// (capture.Limit): "10s (the built-in limit; wait_s raises it)".
func waited(c *catalog.Call, s *duration.Seconds, wait time.Duration) string {
	return fmt.Sprintf("%gs (%s)", wait.Seconds(), c.Limit("wait_s", s != nil, ""))
}

// act runs op, a call that waits up to wait (waited's words) for a stop, on
// the session's backend and renders the state it leaves. A wait that ran
// out is no failure: the target runs on, and the result says so and what
// to call.
func (h *handler) act(ctx context.Context, sessionID string, wait string, op func(debugger.Backend) (debugger.State, error)) (catalog.Result[StopOutput], error) {
	b, id, err := h.backend(ctx, sessionID)
	if err != nil {
		return catalog.Result[StopOutput]{}, err
	}
	st, err := op(b)
	if errors.Is(err, debugger.ErrTimeout) {
		return h.stopResult(ctx, b, id, st, fmt.Sprintf("no stop within %s; the target is still running", wait))
	}
	return h.result(ctx, b, id, st, err)
}

// result renders the state a call left, or its error.
func (h *handler) result(ctx context.Context, b debugger.Backend, id string, st debugger.State, err error) (catalog.Result[StopOutput], error) {
	if err != nil {
		return catalog.Result[StopOutput]{}, describe(err)
	}
	return h.stopResult(ctx, b, id, st, "")
}

type stepParams struct {
	sessionParam
	Kind   string            `json:"kind,omitempty" jsonschema:"over (default), in or out"`
	Thread int               `json:"thread,omitempty"`
	WaitS  *duration.Seconds `json:"wait_s,omitempty" jsonschema:"default 10"`
}

func (h *handler) step(ctx context.Context, c *catalog.Call, in stepParams) (catalog.Result[StopOutput], error) {
	wait, err := waitArg(in.WaitS)
	kind, kindErr := stepKind(in.Kind)
	if err := cmp.Or(err, kindErr); err != nil {
		return catalog.Result[StopOutput]{}, err
	}
	return h.act(ctx, in.SessionID, waited(c, in.WaitS, wait), func(b debugger.Backend) (debugger.State, error) { return b.Step(ctx, kind, in.Thread, wait) })
}

// stepKind reads kind: over (the default), in or out.
func stepKind(s string) (debugger.StepKind, error) {
	switch k := debugger.StepKind(s); k {
	case "":
		return debugger.StepOver, nil
	case debugger.StepOver, debugger.StepIn, debugger.StepOut:
		return k, nil
	}
	return "", fault.Usagef("kind %q: use over, in or out", s)
}

func (h *handler) pause(ctx context.Context, c *catalog.Call, in sessionParam) (catalog.Result[StopOutput], error) {
	b, id, err := h.backend(ctx, in.SessionID)
	if err != nil {
		return catalog.Result[StopOutput]{}, err
	}
	st, err := b.Pause(ctx)
	return h.result(ctx, b, id, st, err)
}
