package debug

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/excerpt"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

type stackParams struct {
	sessionParam
	Thread    int `json:"thread,omitempty"`
	MaxFrames int `json:"max_frames,omitempty" jsonschema:"default 20"`
}

// StackOutput is a backtrace.
type StackOutput struct {
	SessionID string            `json:"session_id" jsonschema:"the session"`
	Frames    []wire.DebugFrame `json:"frames" jsonschema:"innermost first; index is the frame debug_variables and debug_evaluate take"`
}

func (h *handler) stack(ctx context.Context, c *catalog.Call, in stackParams) (catalog.Result[StackOutput], error) {
	b, id, err := h.backend(ctx, in.SessionID)
	if err != nil {
		return catalog.Result[StackOutput]{}, err
	}
	if in.MaxFrames <= 0 {
		in.MaxFrames = 20
	}
	threads, _ := debugger.ListThreads(ctx, b) // best effort: the list only helps choose
	if in.Thread, err = threads.Resolve(in.Thread); err != nil {
		return catalog.Result[StackOutput]{}, fault.Usage(err)
	}
	frames, err := b.Stack(ctx, in.Thread, in.MaxFrames)
	if err != nil {
		return catalog.Result[StackOutput]{}, describe(err)
	}
	var sb strings.Builder
	writeStack(&sb, id, in, frames)
	shown := cmp.Or(in.Thread, threads.Stopped)
	if st := b.State(); shown == 0 && st.LastStop != nil {
		shown = st.LastStop.ThreadID
	}
	if len(threads.Threads) > 1 {
		threads.WriteList(&sb, shown)
		sb.WriteString("thread: N shows another's stack\n")
	}
	h.writeLogpoints(ctx, &sb, b, id)
	return catalog.Result[StackOutput]{Text: sb.String(), Output: StackOutput{SessionID: id, Frames: wire.DebugFramesOf(frames)}}, nil
}

// writeStack writes the frames, and the call that gives more when
// max_frames cut them.
func writeStack(sb *strings.Builder, id string, in stackParams, frames []debugger.Frame) {
	fmt.Fprintf(sb, "STACK of %s (%d frames)\n", id, len(frames))
	for _, f := range frames {
		fmt.Fprintf(sb, "  #%d %s\n", f.Index, f.Text())
	}
	if n := in.MaxFrames; len(frames) == n {
		args := map[string]any{"session_id": id, "max_frames": 4 * n}
		if in.Thread != 0 {
			args["thread"] = in.Thread
		}
		fmt.Fprintf(sb, "cut at max_frames %d; more: %s\n", n, catalog.NextCall("debug_stack", args))
	}
}

type variablesParams struct {
	sessionParam
	Frame  int    `json:"frame,omitempty" jsonschema:"from debug_stack (default: top)"`
	Thread int    `json:"thread,omitempty"`
	Scope  string `json:"scope,omitempty" jsonschema:"locals, arguments, registers or globals"`
	Depth  int    `json:"depth,omitempty" jsonschema:"levels (default 1)"`
}

// VariablesOutput lists variables.
type VariablesOutput struct {
	SessionID string          `json:"session_id" jsonschema:"the session"`
	Variables []wire.Variable `json:"variables" jsonschema:"values, with what the limits cut"`
}

func (h *handler) variables(ctx context.Context, c *catalog.Call, in variablesParams) (catalog.Result[VariablesOutput], error) {
	b, id, err := h.backend(ctx, in.SessionID)
	if err != nil {
		return catalog.Result[VariablesOutput]{}, err
	}
	depth := in.Depth
	if depth <= 0 && in.Scope == "registers" {
		depth = 2 // DAP adapters group registers: the values are one level down
	}
	if in.Thread != 0 {
		threads, _ := debugger.ListThreads(ctx, b)
		if in.Thread, err = threads.Resolve(in.Thread); err != nil {
			return catalog.Result[VariablesOutput]{}, fault.Usage(err)
		}
	}
	frame, err := frameID(ctx, b, in.Thread, in.Frame)
	if err != nil {
		return catalog.Result[VariablesOutput]{}, describe(err)
	}
	vars, err := b.Variables(ctx, debugger.VariablesRequest{Thread: in.Thread, Frame: frame, Scope: in.Scope, Depth: depth})
	if err != nil {
		return catalog.Result[VariablesOutput]{}, describe(err)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "VARIABLES (%d)\n", len(vars))
	debugger.WriteVariables(&sb, vars, "  ", h.svc.Config.BudgetBytes())
	if debugger.DepthCut(vars) {
		writeDeeper(&sb, id, in, depth)
	}
	return catalog.Result[VariablesOutput]{Text: sb.String(), Output: VariablesOutput{SessionID: id, Variables: wire.VariablesOf(vars)}}, nil
}

// writeDeeper names the call that fetches the members the depth left out.
func writeDeeper(sb *strings.Builder, id string, in variablesParams, depth int) {
	if depth <= 0 {
		depth = debugger.DefaultLimits().Depth
	}
	args := map[string]any{"session_id": id, "depth": depth + 1}
	if in.Frame != 0 {
		args["frame"] = in.Frame
	}
	if in.Scope != "" {
		args["scope"] = in.Scope
	}
	fmt.Fprintf(sb, "members beyond depth %d not fetched; more: %s\n", depth, catalog.NextCall("debug_variables", args))
}

type evaluateParams struct {
	sessionParam
	Expression string `json:"expression"`
	Frame      int    `json:"frame,omitempty" jsonschema:"from debug_stack (default: top)"`
}

// EvaluateOutput is an expression's value.
type EvaluateOutput struct {
	SessionID string        `json:"session_id" jsonschema:"the session"`
	Result    wire.Variable `json:"result" jsonschema:"the value"`
}

func (h *handler) evaluate(ctx context.Context, c *catalog.Call, in evaluateParams) (catalog.Result[EvaluateOutput], error) {
	if strings.TrimSpace(in.Expression) == "" {
		return catalog.Result[EvaluateOutput]{}, fault.Usagef("expression is empty")
	}
	b, id, err := h.backend(ctx, in.SessionID)
	if err != nil {
		return catalog.Result[EvaluateOutput]{}, err
	}
	frame, err := frameID(ctx, b, 0, in.Frame)
	if err != nil {
		return catalog.Result[EvaluateOutput]{}, describe(err)
	}
	v, err := b.Evaluate(ctx, in.Expression, frame)
	if err != nil {
		return catalog.Result[EvaluateOutput]{}, evalError(err, in.Expression)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s = %s", in.Expression, v.Value)
	if v.Type != "" {
		fmt.Fprintf(&sb, " (%s)", v.Type)
	}
	sb.WriteByte('\n')
	debugger.WriteVariables(&sb, v.Children, "  ", h.svc.Config.BudgetBytes())
	return catalog.Result[EvaluateOutput]{Text: sb.String(), Output: EvaluateOutput{SessionID: id, Result: wire.VariableOf(v)}}, nil
}

// evalError keeps the debugger's own words about the expression (syntax
// errors, unknown names): they are what the caller needs to fix.
func evalError(err error, expr string) error {
	if errors.Is(err, debugger.ErrRunning) || errors.Is(err, debugger.ErrSessionDead) {
		return describe(err)
	}
	if !strings.HasPrefix(err.Error(), "evaluating") {
		err = fmt.Errorf("evaluating %q: %w", expr, err)
	}
	return fault.Usage(err)
}

type commandParams struct {
	sessionParam
	Command  string           `json:"command"`
	TimeoutS duration.Seconds `json:"timeout_s,omitempty"`
}

// CommandOutput is a raw command's output.
type CommandOutput struct {
	SessionID string `json:"session_id" jsonschema:"the session"`
	catalog.Captured
}

func (h *handler) command(ctx context.Context, c *catalog.Call, in commandParams) (catalog.Result[CommandOutput], error) {
	if strings.TrimSpace(in.Command) == "" {
		return catalog.Result[CommandOutput]{}, fault.Usagef("command is empty")
	}
	limit, err := in.TimeoutS.Timeout(h.svc.Config.CommandTimeout(), duration.CommandMax)
	if err != nil {
		return catalog.Result[CommandOutput]{}, err
	}
	b, id, err := h.backend(ctx, in.SessionID)
	if err != nil {
		return catalog.Result[CommandOutput]{}, err
	}
	out, err := runCommand(ctx, b, in.Command, limit, h.commandLimit(c, in.TimeoutS))
	if err != nil {
		return catalog.Result[CommandOutput]{}, err
	}
	failed := commandError(out)
	status, outcome := "success", catalog.OK
	if failed != "" {
		status, outcome = "failed", catalog.Failed
	}
	oid, e, err := h.store(ctx, in.Command, b.Name(), out, status)
	if err != nil {
		return catalog.Result[CommandOutput]{}, err
	}
	res := CommandOutput{SessionID: id, Captured: catalog.NewCaptured(oid, e.TotalLines, e.Truncated)}
	var sb strings.Builder
	if failed != "" {
		fmt.Fprintf(&sb, "COMMAND FAILED %q (%s): %s\n", in.Command, b.Name(), failed)
	} else {
		fmt.Fprintf(&sb, "COMMAND %q (%s)\n", in.Command, b.Name())
	}
	catalog.WriteExcerpt(&sb, res.Captured, e.Text)
	return catalog.Result[CommandOutput]{Text: sb.String(), Output: res, Outcome: outcome}, nil
}

// commandError is the line of a raw command's output that says the
// debugger refused it (lldb's "error: use of undeclared identifier", gdb's
// "No symbol \"x\" in current context."), or "": the adapters answer such
// a command as a success whose text is the error.
func commandError(out string) string {
	return cmp.Or(postmortem.EngineError(postmortem.EngineLLDB, out), postmortem.EngineError(postmortem.EngineGDB, out))
}

// commandLimit names debug_command's time limit (capture.Limit).
func (h *handler) commandLimit(c *catalog.Call, s duration.Seconds) string {
	l := c.Limit("timeout_s", s > 0, h.svc.Config.CommandTimeoutKey())
	l.Max = duration.CommandMax
	return l.String()
}

// runCommand runs a raw command within limit (named by name). A backend
// that cannot interrupt the command gives up the session: the error says
// the timeout first, then what became of the session.
func runCommand(ctx context.Context, b debugger.Backend, command string, limit time.Duration, name string) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	out, err := b.RawCommand(cctx, command)
	if err != nil && (errors.Is(err, context.DeadlineExceeded) || cctx.Err() != nil && ctx.Err() == nil) {
		return "", fmt.Errorf("%q did not finish within %v (%s): %w", command, limit.Round(time.Millisecond), name, describe(err))
	}
	return out, describe(err)
}

// store keeps a raw command's output in the output store and returns its
// id and the excerpt the answer shows.
func (h *handler) store(ctx context.Context, command, backend, out, status string) (string, excerpt.Excerpt, error) {
	st, err := h.svc.Store(ctx)
	if err != nil {
		return "", excerpt.Excerpt{}, err
	}
	oid, err := st.Put(ctx, store.Meta{Tool: "debug_command", Argv: []string{command}, Engine: backend}, out, store.Final{Status: status})
	if err != nil {
		return "", excerpt.Excerpt{}, err
	}
	ex := excerpt.New(h.svc.Config.BudgetBytes(), nil)
	ex.Write([]byte(out))
	ex.Flush()
	return oid, ex.Excerpt(), nil
}
