package dap

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
)

// A write watch stops at the line that writes
// (watch.c:7) with old → new, each time; a breakpoint reached meanwhile
// still stops; the stack and values read after the stop are the new
// place's; after the last write the target exits. On a host without
// hardware watchpoints this is the software watch, through evaluate.
//
// Under both lldb adapters: lldb-dap-22's data breakpoints where hardware
// watchpoints are delivered, the software watch where not (its data
// breakpoint would be set and never fire).
func TestWatchStopsAtWritingLineBothLLDBAdapters(t *testing.T) {
	for _, ad := range lldbAdapters(t) {
		t.Run(ad.name, func(t *testing.T) { watchStopsAtWritingLine(t, launchAtMain(t, ad, debugger.Config{})) })
	}
}

func watchStopsAtWritingLine(t *testing.T, b *Backend) {
	ctx := context.Background()
	bp, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{Watch: "counter"})
	if err != nil {
		t.Fatalf("watch: %+v, %v", bp, err)
	}
	if soft, _ := debugger.SoftWatchNeeded(); soft != strings.Contains(bp.Via, "single-stepping") {
		t.Errorf("software watch needed %t, via %q", soft, bp.Via)
	}
	line8, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{File: "watch.c", Line: 8})
	if err != nil {
		t.Fatal(err)
	}
	wantWatchDAP(t, b, bp.ID, "0", "1")
	st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 30 * time.Second})
	if err != nil || st.LastStop == nil || len(st.LastStop.BreakpointIDs) != 1 || st.LastStop.BreakpointIDs[0] != line8.ID || st.LastStop.Watch != nil {
		t.Fatalf("continue to line 8: %+v %+v, %v", st, st.LastStop, err)
	}
	if frames, err := b.Stack(ctx, 0, 5); err != nil || len(frames) == 0 || frames[0].Line != 8 {
		t.Errorf("stack at line 8: %+v, %v", frames, err)
	}
	if err := b.RemoveBreakpoint(ctx, line8.ID); err != nil {
		t.Fatal(err)
	}
	wantWatchDAP(t, b, bp.ID, "1", "3")
	if v, err := b.Evaluate(ctx, "n", 0); err != nil || v.Value != "2" {
		t.Errorf("n in the writing frame = %+v, %v", v, err)
	}
	if st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 30 * time.Second}); err != nil || st.Status != debugger.StatusExited {
		t.Fatalf("after the last write: %+v %+v, %v", st, st.LastStop, err)
	}
}

func wantWatchDAP(t *testing.T, b *Backend, id int, old, new string) {
	t.Helper()
	st, err := b.Continue(context.Background(), debugger.ContinueOptions{Wait: 30 * time.Second})
	if err != nil || st.LastStop == nil || st.LastStop.Watch == nil {
		t.Fatalf("continue: %+v %+v, %v", st, st.LastStop, err)
	}
	if w := st.LastStop.Watch; w.ID != id || w.Expr != "counter" || w.Old != old || w.New != new || filepath.Base(w.File) != "watch.c" || w.Line != 7 {
		t.Errorf("watch stop = %+v, want counter %s → %s written at watch.c:7", w, old, new)
	}
}

// Emulated watches (here by configuration, on any host) under
// lldb-vscode: a read watch is a clear refusal; a continue that reaches
// the step limit says so, the target stopped and still usable.
func TestSoftWatchLimitsLLDBVSCode(t *testing.T) {
	needTool(t, "lldb-vscode", "lldb-16")
	prog := build(t, "watch", "gcc", "-g", "-O0", "watch.c")
	ctx := context.Background()
	b := New(KindLLDB, debugger.Config{Dir: t.TempDir(), WatchSteps: 3, SoftWatch: true})
	t.Cleanup(func() { b.Dispose() })
	st, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog, Breakpoints: []debugger.BreakpointSpec{{Function: "main"}}})
	if err != nil {
		t.Fatal(err)
	}
	mustStop(t, b, st, debugger.StopBreakpoint)
	if _, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{Watch: "counter", Access: "read"}); err == nil || !strings.Contains(err.Error(), "unsupported here because") {
		t.Errorf("read watch: %v", err)
	}
	if _, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{Watch: "counter"}); err != nil {
		t.Fatal(err)
	}
	st, err = b.Continue(ctx, debugger.ContinueOptions{Wait: 30 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "no watched value changed in 3 steps (the step limit)") || st.Status != debugger.StatusStopped {
		t.Fatalf("continue: %+v, %v", st, err)
	}
	if v, err := b.Evaluate(ctx, "counter", 0); err != nil || v.Value != "0" {
		t.Errorf("counter = %+v, %v", v, err)
	}
}
