package lldbcli

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/debugger"
)

// lldbRef is what one of our breakpoints is to lldb.
type lldbRef struct {
	kind string // "breakpoint", "watchpoint" or "signal"
	id   int    // lldb's breakpoint or watchpoint id
	// signal and wasStop: a signal stop's signal and whether lldb stopped
	// on it before, restored on removal.
	signal  string
	wasStop bool
	// soft: a watch emulated by single-stepping (softwatch.go).
	soft bool
}

// AddBreakpoint implements debugger.Backend. Our ids count apart from
// lldb's, which has one count for breakpoints and another for watchpoints.
func (b *Backend) AddBreakpoint(ctx context.Context, spec debugger.BreakpointSpec) (debugger.Breakpoint, error) {
	b.op.Lock()
	defer b.op.Unlock()
	if err := b.usable(ctx, false); err != nil {
		return debugger.Breakpoint{}, err
	}
	return b.addBreakpoint(ctx, spec)
}

func (b *Backend) addBreakpoint(ctx context.Context, spec debugger.BreakpointSpec) (debugger.Breakpoint, error) {
	if err := spec.Validate(); err != nil {
		return debugger.Breakpoint{}, err
	}
	var bp debugger.Breakpoint
	var ref lldbRef
	var err error
	switch spec.Kind() {
	case "watch":
		bp, ref, err = b.setWatch(ctx, spec)
	case "exception":
		bp, ref, err = b.setCatch(ctx, spec)
	default:
		bp, ref, err = b.setCode(ctx, spec)
	}
	if err != nil {
		return debugger.Breakpoint{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextID++
	bp.ID, bp.Kind = b.nextID, spec.Kind()
	b.bps[bp.ID], b.refs[bp.ID] = bp, ref
	return bp, nil
}

// setCode sets a breakpoint at a function or a file's line; one with a
// log message logs and goes on.
func (b *Backend) setCode(ctx context.Context, spec debugger.BreakpointSpec) (debugger.Breakpoint, lldbRef, error) {
	if err := b.checkLogpoint(spec); err != nil {
		return debugger.Breakpoint{}, lldbRef{}, err
	}
	cmd := "breakpoint set"
	if spec.Function != "" {
		cmd += " -n " + quote(spec.Function)
	} else {
		cmd += " -f " + quote(spec.File) + " -l " + strconv.Itoa(spec.Line)
	}
	if spec.Condition != "" {
		cmd += " -c " + quote(spec.Condition)
	}
	if spec.HitCondition != "" {
		n, err := strconv.Atoi(strings.TrimSpace(spec.HitCondition))
		if err != nil || n < 1 {
			return debugger.Breakpoint{}, lldbRef{}, fmt.Errorf("breakpoint: hit condition must be a count >= 1 for lldb, got %q", spec.HitCondition)
		}
		cmd += " -i " + strconv.Itoa(n-1) // ignore the first n-1 hits
	}
	bp, ref, err := b.setLLDBBreakpoint(ctx, cmd, spec)
	if err == nil && spec.LogMessage != "" {
		err = b.makeLogpoint(ctx, ref.id, spec.LogMessage)
	}
	return bp, ref, err
}

func (b *Backend) setLLDBBreakpoint(ctx context.Context, cmd string, spec debugger.BreakpointSpec) (debugger.Breakpoint, lldbRef, error) {
	out, err := b.runChecked(ctx, cmd)
	if err != nil {
		return debugger.Breakpoint{}, lldbRef{}, err
	}
	bp, err := parseBreakpointSet(out, spec)
	return bp, lldbRef{kind: "breakpoint", id: bp.ID}, err
}

// setCatch stops on an exception kind: lldb's own C++ exception
// breakpoint, a breakpoint on the runtime function a panic or abort
// passes through, or lldb's handling of a signal.
func (b *Backend) setCatch(ctx context.Context, spec debugger.BreakpointSpec) (debugger.Breakpoint, lldbRef, error) {
	e, _ := debugger.ParseException(spec.Exception)
	switch e.Kind {
	case "c++":
		return b.setLLDBBreakpoint(ctx, "breakpoint set -E c++ -w true -h false", spec)
	case "signal":
		out, err := b.runChecked(ctx, "process handle "+e.Signal)
		if err != nil {
			return debugger.Breakpoint{}, lldbRef{}, fmt.Errorf("exception %s: %w", e, err)
		}
		ref := lldbRef{kind: "signal", signal: e.Signal, wasStop: handlesStop(out, e.Signal)}
		if _, err := b.runChecked(ctx, debugger.LLDBSignalCommand(e.Signal, true)); err != nil {
			return debugger.Breakpoint{}, lldbRef{}, fmt.Errorf("exception %s: %w", e, err)
		}
		return debugger.Breakpoint{Spec: spec, Verified: true, Via: "lldb's process handle (stop, pass on continue)"}, ref, nil
	}
	bp, ref, err := b.setLLDBBreakpoint(ctx, "breakpoint set -n "+quote(e.Function()), spec)
	bp.Via = "breakpoint on " + e.Function()
	return bp, ref, err
}

// handlesStop reads whether `process handle SIG` says lldb stops on it.
func handlesStop(out, sig string) bool {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == sig {
			return f[2] == "true"
		}
	}
	return true // lldb's default for most signals
}

// setWatch sets a watchpoint; it needs a live process.
func (b *Backend) setWatch(ctx context.Context, spec debugger.BreakpointSpec) (debugger.Breakpoint, lldbRef, error) {
	if b.isCore() {
		return debugger.Breakpoint{}, lldbRef{}, fmt.Errorf("watchpoints on a core file: %w", debugger.ErrUnsupported)
	}
	access, _ := debugger.ParseAccess(spec.Access)
	soft, why, note := b.softWatchNeeded(ctx)
	if soft && access != debugger.AccessWrite {
		return debugger.Breakpoint{}, lldbRef{}, debugger.SoftWatchReadError(access, why)
	}
	out, err := b.run(ctx, debugger.LLDBWatchCommand(spec.Watch, access), nil)
	if err != nil {
		return debugger.Breakpoint{}, lldbRef{}, err
	}
	if runningErr().MatchString(out) {
		return debugger.Breakpoint{}, lldbRef{}, debugger.ErrRunning
	}
	if e := lldbError(out); e != "" {
		return debugger.Breakpoint{}, lldbRef{}, fmt.Errorf("watch %q: lldb: %s (watch an lvalue: a variable, a field, an element, *pointer)", spec.Watch, e)
	}
	id, value, err := debugger.LLDBWatchSet(out)
	if err != nil {
		return debugger.Breakpoint{}, lldbRef{}, err
	}
	bp := debugger.Breakpoint{Spec: spec, Verified: true, Value: value, Via: note}
	if soft {
		if err := b.addSoftWatch(ctx, spec.Watch); err != nil {
			_, _ = b.run(ctx, "watchpoint delete "+strconv.Itoa(id), nil)
			return debugger.Breakpoint{}, lldbRef{}, err
		}
		bp.Via = why
	}
	return bp, lldbRef{kind: "watchpoint", id: id, soft: soft}, nil
}

func parseBreakpointSet(out string, spec debugger.BreakpointSpec) (debugger.Breakpoint, error) {
	for _, line := range strings.Split(out, "\n") {
		m := bpSetRE().FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		id, _ := strconv.Atoi(m[1])
		bp := debugger.Breakpoint{ID: id, Spec: spec, Verified: !strings.Contains(m[2], "no locations")}
		if bp.Verified {
			if w := whereAtRE().FindStringSubmatch(m[2]); w != nil {
				bp.File = w[1]
				bp.Line, _ = strconv.Atoi(w[2])
			}
		} else {
			bp.Message = "unverified: " + m[2]
		}
		return bp, nil
	}
	return debugger.Breakpoint{}, fmt.Errorf("breakpoint set: unexpected lldb output: %q", out)
}

// RemoveBreakpoint implements debugger.Backend.
func (b *Backend) RemoveBreakpoint(ctx context.Context, id int) error {
	b.op.Lock()
	defer b.op.Unlock()
	b.mu.Lock()
	ref, ok := b.refs[id]
	b.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w %d", debugger.ErrUnknownBreakpoint, id)
	}
	cmd := ref.kind + " delete " + strconv.Itoa(ref.id)
	if ref.kind == "signal" {
		cmd = debugger.LLDBSignalCommand(ref.signal, ref.wasStop)
	}
	if _, err := b.runChecked(ctx, cmd); err != nil {
		return err
	}
	if ref.soft {
		if _, err := b.runChecked(ctx, debugger.LLDBSoftWatchDelete(id)); err != nil {
			return err
		}
	}
	b.mu.Lock()
	delete(b.bps, id)
	delete(b.refs, id)
	b.mu.Unlock()
	return nil
}

// Breakpoints implements debugger.Backend.
func (b *Backend) Breakpoints() []debugger.Breakpoint {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]debugger.Breakpoint, 0, len(b.bps))
	for _, bp := range b.bps {
		out = append(out, bp)
	}
	slices.SortFunc(out, func(x, y debugger.Breakpoint) int { return x.ID - y.ID })
	return out
}
