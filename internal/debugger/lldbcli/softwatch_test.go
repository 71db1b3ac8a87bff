package lldbcli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
)

// A write watch stops at the line that writes (watch.c:7), with old →
// new, each time, through the printf between the writes; a breakpoint
// reached meanwhile still stops; after the last write the target exits.
// On a host without hardware watchpoints this is the software watch.
func TestWatchStopsAtWritingLine(t *testing.T) {
	prog := buildWith(t, "gcc", "watch.c")
	ctx := context.Background()
	b := newBackend(t)
	if _, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog, Breakpoints: []debugger.BreakpointSpec{{Function: "main"}}}); err != nil {
		t.Fatal(err)
	}
	bp, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{Watch: "counter"})
	if err != nil || bp.Kind != "watch" {
		t.Fatalf("watch: %+v, %v", bp, err)
	}
	t.Logf("watch via: %q", bp.Via)
	if soft, _ := debugger.SoftWatchNeeded(); soft != strings.Contains(bp.Via, "single-stepping") {
		t.Errorf("software watch needed %t, via %q", soft, bp.Via)
	}
	line8, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{File: "watch.c", Line: 8})
	if err != nil {
		t.Fatal(err)
	}
	wantWatch(t, b, bp.ID, "0", "1")
	st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 30 * time.Second})
	if err != nil || st.LastStop == nil || len(st.LastStop.BreakpointIDs) != 1 || st.LastStop.BreakpointIDs[0] != line8.ID || st.LastStop.Watch != nil {
		t.Fatalf("continue to line 8: %+v %+v, %v", st, st.LastStop, err)
	}
	if err := b.RemoveBreakpoint(ctx, line8.ID); err != nil {
		t.Fatal(err)
	}
	wantWatch(t, b, bp.ID, "1", "3")
	if st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 30 * time.Second}); err != nil || st.Status != debugger.StatusExited {
		t.Fatalf("after the last write: %+v, %v", st, err)
	}
}

func wantWatch(t *testing.T, b *Backend, id int, old, new string) {
	t.Helper()
	st, err := b.Continue(context.Background(), debugger.ContinueOptions{Wait: 30 * time.Second})
	if err != nil || st.LastStop == nil || st.LastStop.Watch == nil {
		t.Fatalf("continue: %+v %+v, %v", st, st.LastStop, err)
	}
	w := st.LastStop.Watch
	if w.ID != id || w.Expr != "counter" || w.Old != old || w.New != new || filepath.Base(w.File) != "watch.c" || w.Line != 7 {
		t.Errorf("watch stop = %+v, want counter %s → %s written at watch.c:7", w, old, new)
	}
	if v := debugger.VerdictOf(st, nil, b.Breakpoints()); v.Kind != debugger.VerdictWatch || v.Breakpoint != id {
		t.Errorf("verdict = %+v", v)
	}
}

// Where watches are emulated (here by configuration, on any host), a read
// watch is a clear refusal and a continue that reaches the step limit says
// so, the target still stopped.
func TestSoftWatchLimits(t *testing.T) {
	prog := buildWith(t, "gcc", "watch.c")
	ctx := context.Background()
	b := New(debugger.Config{Dir: t.TempDir(), WatchSteps: 3, SoftWatch: true})
	t.Cleanup(func() { b.Dispose() })
	if _, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog, Breakpoints: []debugger.BreakpointSpec{{Function: "main"}}}); err != nil {
		t.Fatal(err)
	}
	for _, access := range []string{"read", "readwrite"} {
		_, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{Watch: "counter", Access: access})
		if err == nil || !strings.Contains(err.Error(), "unsupported here because") {
			t.Errorf("%s watch: %v", access, err)
		}
	}
	if _, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{Watch: "counter"}); err != nil {
		t.Fatal(err)
	}
	st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 30 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "no watched value changed in 3 steps (the step limit)") || st.Status != debugger.StatusStopped {
		t.Fatalf("continue: %+v, %v", st, err)
	}
	if v, err := b.Evaluate(ctx, "counter", 0); err != nil || v.Value != "0" {
		t.Errorf("counter = %+v, %v", v, err)
	}
}

// The probe agrees with lldb's own hardware watchpoint: set by a raw
// command (no emulation), it stops the target at the write where the probe
// says the host delivers them, and the target runs to its exit where not.
func TestHardwareWatchProbeAgreesWithLLDB(t *testing.T) {
	prog := buildWith(t, "gcc", "watch.c")
	ctx := context.Background()
	b := newBackend(t)
	if _, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog, Breakpoints: []debugger.BreakpointSpec{{Function: "main"}}}); err != nil {
		t.Fatal(err)
	}
	if out, err := b.RawCommand(ctx, "watchpoint set variable -w write -- counter"); err != nil || !strings.Contains(out, "Watchpoint created") {
		t.Fatalf("watchpoint set: %q, %v", out, err)
	}
	st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	soft, why := debugger.SoftWatchNeeded()
	stopped := st.Status == debugger.StatusStopped && st.LastStop != nil && strings.HasPrefix(st.LastStop.Description, "watchpoint")
	t.Logf("probe: emulation needed %t (%s); lldb's hardware watchpoint: %s %+v", soft, why, st.Status, st.LastStop)
	if stopped == soft || !stopped && st.Status != debugger.StatusExited {
		t.Errorf("the probe says emulation needed %t, but lldb's own watchpoint left the target %s (%+v)", soft, st.Status, st.LastStop)
	}
}
