package lldbcli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/debugger"
)

// Stack implements debugger.Backend.
func (b *Backend) Stack(ctx context.Context, thread, maxFrames int) ([]debugger.Frame, error) {
	b.op.Lock()
	defer b.op.Unlock()
	return b.stack(ctx, thread, maxFrames)
}

func (b *Backend) stack(ctx context.Context, thread, maxFrames int) ([]debugger.Frame, error) {
	if err := b.usable(ctx, true); err != nil {
		return nil, err
	}
	if maxFrames <= 0 {
		maxFrames = b.lim.MaxFrames
	}
	cmd := "thread backtrace -c " + strconv.Itoa(maxFrames)
	if thread != 0 {
		cmd += " " + strconv.Itoa(thread)
	}
	out, err := b.runChecked(ctx, cmd)
	if err != nil {
		return nil, err
	}
	return parseFrames(out), nil
}

// selectFrame makes frame (ID = index+1; 0 = top) lldb's selected frame.
func (b *Backend) selectFrame(ctx context.Context, thread, frame int) error {
	if thread != 0 {
		if _, err := b.runChecked(ctx, "thread select "+strconv.Itoa(thread)); err != nil {
			return err
		}
	}
	idx := 0
	if frame > 0 {
		idx = frame - 1
	}
	_, err := b.runChecked(ctx, "frame select "+strconv.Itoa(idx))
	return err
}

// Variables implements debugger.Backend. Depth beyond the top level is not
// fetched separately: lldb prints nested values inline, folded into Value.
func (b *Backend) Variables(ctx context.Context, req debugger.VariablesRequest) ([]debugger.Variable, error) {
	b.op.Lock()
	defer b.op.Unlock()
	if err := b.usable(ctx, true); err != nil {
		return nil, err
	}
	if err := b.selectFrame(ctx, req.Thread, req.Frame); err != nil {
		return nil, err
	}
	flags := map[string]string{"": "", "locals": " -a", "local": " -a", "arguments": " -l", "args": " -l", "globals": " -g -a -l"}
	f, ok := flags[strings.ToLower(req.Scope)]
	if !ok {
		if strings.EqualFold(req.Scope, "registers") {
			return b.registers(ctx)
		}
		return nil, fmt.Errorf("unknown scope %q (want locals, arguments, globals or registers)", req.Scope)
	}
	out, err := b.runChecked(ctx, "frame variable"+f)
	if err != nil {
		return nil, err
	}
	return b.capVars(parseVariables(out)), nil
}

func (b *Backend) registers(ctx context.Context) ([]debugger.Variable, error) {
	out, err := b.runChecked(ctx, "register read")
	if err != nil {
		return nil, err
	}
	var vars []debugger.Variable
	for _, line := range strings.Split(out, "\n") {
		name, value, ok := strings.Cut(strings.TrimSpace(line), " = ")
		if ok {
			vars = append(vars, debugger.Variable{Name: name, Value: value})
		}
	}
	return b.capVars(vars), nil
}

func (b *Backend) capVars(vars []debugger.Variable) []debugger.Variable {
	keep, note := b.lim.CapChildren(len(vars))
	vars = vars[:keep]
	for i := range vars {
		vars[i].Value, vars[i].Cut = b.lim.CapValue(vars[i].Value)
	}
	if note != "" {
		vars = append(vars, debugger.Variable{Name: "…", Cut: note})
	}
	return vars
}

// Evaluate implements debugger.Backend.
func (b *Backend) Evaluate(ctx context.Context, expr string, frame int) (debugger.Variable, error) {
	if strings.ContainsAny(expr, "\r\n") {
		return debugger.Variable{}, fmt.Errorf("evaluating: expression must be one line")
	}
	b.op.Lock()
	defer b.op.Unlock()
	if err := b.usable(ctx, true); err != nil {
		return debugger.Variable{}, err
	}
	if err := b.selectFrame(ctx, 0, frame); err != nil {
		return debugger.Variable{}, err
	}
	out, err := b.run(ctx, "expression -- "+expr, nil)
	if err != nil {
		return debugger.Variable{}, err
	}
	if e := lldbError(out); e != "" {
		err := fmt.Errorf("evaluating %q: %s", expr, strings.TrimSpace(strings.TrimPrefix(out, "error: ")))
		return debugger.Variable{}, debugger.WithEvalHint(err, "lldb", expr)
	}
	v := debugger.Variable{Name: expr, Value: strings.TrimSpace(out)}
	if m := exprRE().FindStringSubmatch(strings.TrimSpace(out)); m != nil {
		v.Type, v.Value = m[1], m[2]
	}
	v.Value, v.Cut = b.lim.CapValue(v.Value)
	return v, nil
}

// Threads implements debugger.Backend: lldb's `thread list`, each thread
// by its #N (what `thread backtrace N` takes), named by its tid and name.
func (b *Backend) Threads(ctx context.Context) ([]debugger.Thread, error) {
	b.op.Lock()
	defer b.op.Unlock()
	if err := b.usable(ctx, true); err != nil {
		return nil, err
	}
	out, err := b.runChecked(ctx, "thread list")
	if err != nil {
		return nil, err
	}
	return debugger.ParseLLDBThreads(out, false), nil
}
