package dap

import (
	"context"
	"fmt"
	"strings"

	godap "github.com/google/go-dap"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/interactive"
)

// Stack implements debugger.Backend.
func (b *Backend) Stack(ctx context.Context, thread, maxFrames int) ([]debugger.Frame, error) {
	if err := b.usable(true); err != nil {
		return nil, err
	}
	if maxFrames <= 0 {
		maxFrames = b.lim.MaxFrames
	}
	if thread == 0 {
		thread = b.stoppedThread(ctx)
	}
	var body godap.StackTraceResponseBody
	if err := b.call(ctx, "stackTrace", godap.StackTraceArguments{ThreadId: thread, Levels: maxFrames}, &body); err != nil {
		return nil, err
	}
	frames := make([]debugger.Frame, 0, len(body.StackFrames))
	for i, f := range body.StackFrames {
		if i >= maxFrames {
			break
		}
		fr := debugger.Frame{ID: f.Id, Index: i, Function: f.Name, Line: f.Line, Address: f.InstructionPointerReference}
		switch {
		case f.Source == nil:
		case f.Source.SourceReference > 0 && (f.Source.Path == "" || f.Source.PresentationHint == "deemphasize"):
			// The adapter's own text, no file: lldb-dap 22 gives a frame
			// without line information its disassembly (path
			// "…/prog`_start", deemphasized, its line in that text).
			fr.Line = 0
		case f.Source.Path != "":
			fr.File = f.Source.Path
		default:
			fr.File = f.Source.Name
		}
		frames = append(frames, fr)
	}
	return frames, nil
}

func (b *Backend) stoppedThread(ctx context.Context) int {
	b.mu.Lock()
	t := b.thread
	b.mu.Unlock()
	if t != 0 {
		return t
	}
	return b.anyThread(ctx)
}

// topFrame returns the ID of thread's innermost frame.
func (b *Backend) topFrame(ctx context.Context, thread int) (int, error) {
	frames, err := b.Stack(ctx, thread, 1)
	if err != nil {
		return 0, err
	}
	if len(frames) == 0 {
		return 0, fmt.Errorf("thread %d has no frames", thread)
	}
	return frames[0].ID, nil
}

// Variables implements debugger.Backend.
func (b *Backend) Variables(ctx context.Context, req debugger.VariablesRequest) ([]debugger.Variable, error) {
	if err := b.usable(true); err != nil {
		return nil, err
	}
	frame := req.Frame
	if frame <= 0 {
		var err error
		if frame, err = b.topFrame(ctx, req.Thread); err != nil {
			return nil, err
		}
	}
	depth := req.Depth
	if depth <= 0 {
		depth = b.lim.Depth
	}
	var scopes godap.ScopesResponseBody
	if err := b.call(ctx, "scopes", godap.ScopesArguments{FrameId: frame}, &scopes); err != nil {
		return nil, err
	}
	var out []debugger.Variable
	var names []string
	for _, sc := range scopes.Scopes {
		names = append(names, sc.Name)
		if !scopeWanted(sc.Name, req.Scope) {
			continue
		}
		vars, err := b.fetch(ctx, sc.VariablesReference, depth)
		if err != nil {
			return nil, fmt.Errorf("reading scope %s: %w", sc.Name, err)
		}
		out = append(out, vars...)
	}
	if req.Scope != "" && len(out) == 0 && !anyScopeWanted(names, req.Scope) {
		return nil, fmt.Errorf("no scope %q in this frame (have %s)", req.Scope, strings.Join(names, ", "))
	}
	return out, nil
}

// scopeWanted matches adapter scope names ("Locals", "Arguments",
// "Registers", "Globals", "Local" ...) against the requested one; "" means
// locals and arguments.
func scopeWanted(name, want string) bool {
	n := strings.ToLower(name)
	if want == "" {
		return strings.HasPrefix(n, "local") || strings.HasPrefix(n, "arg")
	}
	w := strings.ToLower(want)
	return strings.HasPrefix(n, strings.TrimSuffix(w, "s"))
}

func anyScopeWanted(names []string, want string) bool {
	for _, n := range names {
		if scopeWanted(n, want) {
			return true
		}
	}
	return false
}

// fetch reads the variables behind ref, down to depth levels, within limits.
func (b *Backend) fetch(ctx context.Context, ref, depth int) ([]debugger.Variable, error) {
	var body godap.VariablesResponseBody
	if err := b.call(ctx, "variables", godap.VariablesArguments{VariablesReference: ref}, &body); err != nil {
		return nil, err
	}
	keep, note := b.lim.CapChildren(len(body.Variables))
	out := make([]debugger.Variable, 0, keep)
	for _, v := range body.Variables[:keep] {
		dv, err := b.convert(ctx, v.Name, v.Type, v.Value, v.VariablesReference, depth)
		if err != nil {
			return nil, err
		}
		out = append(out, dv)
	}
	if note != "" {
		out = append(out, debugger.Variable{Name: "…", Cut: note})
	}
	return out, nil
}

func (b *Backend) convert(ctx context.Context, name, typ, value string, ref, depth int) (debugger.Variable, error) {
	v := debugger.Variable{Name: name, Type: typ}
	v.Value, v.Cut = b.lim.CapValue(value)
	if ref == 0 {
		return v, nil
	}
	if depth <= 1 {
		v.Cut = debugger.JoinCut(v.Cut, "children not fetched (depth limit)")
		return v, nil
	}
	children, err := b.fetch(ctx, ref, depth-1)
	if err != nil {
		return v, err
	}
	v.Children = children
	return v, nil
}

// Evaluate implements debugger.Backend. frame <= 0 is the top frame of the
// stopped thread.
func (b *Backend) Evaluate(ctx context.Context, expr string, frame int) (debugger.Variable, error) {
	if err := b.usable(true); err != nil {
		return debugger.Variable{}, err
	}
	if frame <= 0 {
		var err error
		if frame, err = b.topFrame(ctx, 0); err != nil {
			return debugger.Variable{}, err
		}
	}
	var body godap.EvaluateResponseBody
	if err := b.call(ctx, "evaluate", godap.EvaluateArguments{Expression: expr, FrameId: frame, Context: "watch"}, &body); err != nil {
		b.mu.Lock()
		kind := b.fl.kind
		b.mu.Unlock()
		return debugger.Variable{}, debugger.WithEvalHint(fmt.Errorf("evaluating %q: %w", expr, err), kind, expr)
	}
	return b.convert(ctx, expr, body.Type, body.Result, body.VariablesReference, 2)
}

// rawOutputMax bounds a raw command's output: larger than a value, since
// the caller asked for a debugger command's whole answer.
const rawOutputMax = 256 << 10

// RawCommand implements debugger.Backend through evaluate in the repl
// context, which each adapter maps to its own command language. A command
// that would make the debugger read its own input (an interactive shell or
// Python prompt) is refused: that input is the adapter's protocol stream.
func (b *Backend) RawCommand(ctx context.Context, command string) (string, error) {
	if err := b.usable(false); err != nil {
		return "", err
	}
	args := godap.EvaluateArguments{Context: "repl"}
	b.mu.Lock()
	if d := b.fl.dialect; d != "" {
		if err := interactive.Check(d, strings.TrimPrefix(strings.TrimSpace(command), "`")); err != nil {
			b.mu.Unlock()
			return "", err
		}
	}
	args.Expression = b.fl.rawExpr(command)
	stopped := b.state.Status == debugger.StatusStopped
	b.mu.Unlock()
	if stopped {
		if f, err := b.topFrame(ctx, 0); err == nil {
			args.FrameId = f
		}
	}
	var body godap.EvaluateResponseBody
	if err := b.call(ctx, "evaluate", args, &body); err != nil {
		return "", err
	}
	out, cut := debugger.Limits{MaxString: rawOutputMax}.CapValue(body.Result)
	if cut != "" {
		out += "\n[" + cut + "]"
	}
	return out, nil
}
