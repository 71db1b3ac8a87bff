package lldbcli

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/debugger"
)

// AddBreakpoint implements debugger.Backend. Breakpoint IDs are lldb's own.
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
			return debugger.Breakpoint{}, fmt.Errorf("breakpoint: hit condition must be a count >= 1 for lldb, got %q", spec.HitCondition)
		}
		cmd += " -i " + strconv.Itoa(n-1) // ignore the first n-1 hits
	}
	out, err := b.runChecked(ctx, cmd)
	if err != nil {
		return debugger.Breakpoint{}, err
	}
	bp, err := parseBreakpointSet(out, spec)
	if err != nil {
		return debugger.Breakpoint{}, err
	}
	b.mu.Lock()
	b.bps[bp.ID] = bp
	b.mu.Unlock()
	return bp, nil
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
	_, ok := b.bps[id]
	b.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w %d", debugger.ErrUnknownBreakpoint, id)
	}
	if _, err := b.runChecked(ctx, "breakpoint delete "+strconv.Itoa(id)); err != nil {
		return err
	}
	b.mu.Lock()
	delete(b.bps, id)
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
