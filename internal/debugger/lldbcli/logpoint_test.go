package lldbcli

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/debugtest"
)

// TestLogpointContinueWaitRunsOut: a continue whose wait runs out while a
// logpoint on a long loop is hit says the target still runs, with the hits
// so far in the event log, even when the wait is longer than one lldb
// command may take (it used to come back as a timed-out command).
func TestLogpointContinueWaitRunsOut(t *testing.T) {
	if _, err := FindLLDB(); err != nil {
		t.Fatal(err)
	}
	prog := crashers.Build(t, "loop")
	ctx := context.Background()
	b := newBackend(t)
	b.cmdWait = time.Second
	if _, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog, Args: []string{"100000000"}, StopOnEntry: true}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Detach(context.Background()) }) // kills the target before lldb goes
	if _, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{File: "loop.c", Line: 7, LogMessage: "{i} {acc}"}); err != nil {
		t.Fatal(err)
	}
	st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 2 * time.Second})
	if !errors.Is(err, debugger.ErrTimeout) || st.Status != debugger.StatusRunning {
		t.Fatalf("continue: %+v, %v; want ErrTimeout with the target running", st, err)
	}
	// The hits so far are in the log while the target runs (lldb writes it).
	news, err := b.Logpoints().TakeNew()
	if err != nil || news.New == 0 || news.Full || len(news.Last) == 0 || news.Last[len(news.Last)-1].Breakpoint != 1 {
		t.Fatalf("event log after the wait: %+v, %v; want hits of logpoint 1", news, err)
	}
}

// TestLogpointLogBounded: lldb's Python stops writing the event log at its
// bound (here shrunk to 600 bytes, a few hits) with whole lines only, and
// the target runs to its end.
func TestLogpointLogBounded(t *testing.T) {
	ctx := context.Background()
	b := loopWithLogpoint(t, "50", "i={i}")
	if out, err := b.RawCommand(ctx, "script triage_lp_P[1] = triage_lp_P[1][:3] + (600,) + triage_lp_P[1][4:]"); err != nil {
		t.Fatalf("shrinking the bound: %q, %v", out, err)
	}
	if st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 60 * time.Second}); err != nil || st.Status != debugger.StatusExited {
		t.Fatalf("continue: %+v, %v; want the exit", st, err)
	}
	data, err := b.Logpoints().Contents()
	news, _ := b.Logpoints().TakeNew()
	if err != nil || len(data) > 600 || len(data) < 400 || news.New == 0 || news.New >= 50 || news.Last[len(news.Last)-1].Message == "i=49" {
		t.Fatalf("event log: %d bytes, %+v, %v; want at most 600 bytes of the first hits", len(data), news, err)
	}
}

// TestPauseAmidLogpointHits: a pause while a logpoint on a hot loop is hit
// again and again stops the target, says it paused, and leaves it stopped:
// the log grows no more. An interrupt that meets lldb inside a logpoint's
// Python used to fail ("Process is not running"), read as a stop at the
// logpoint, or be lost as the logpoint let the target go on.
func TestPauseAmidLogpointHits(t *testing.T) {
	ctx := context.Background()
	for round := range 3 {
		b := loopWithLogpoint(t, "100000000", "{i}")
		debugtest.RunUntilLogged(t, b)
		debugtest.PauseAmidHits(t, b, round)
		before, _ := b.Logpoints().Contents()
		// lldb's own status, asked afresh, says stopped; and no hit is
		// logged while it is.
		if out, err := b.RawCommand(ctx, "process status"); err != nil || !strings.Contains(out, " stopped") {
			t.Fatalf("round %d: after the pause, process status: %q, %v", round, out, err)
		}
		after, _ := b.Logpoints().Contents()
		if len(after) != len(before) {
			t.Errorf("round %d: the log grew from %d to %d bytes after the pause: the target runs", round, len(before), len(after))
		}
	}
}

// TestWaitAmidLogpointHitsSeesNoStop: while the target runs through a hot
// logpoint, a continue that waits on it and a WaitStop both say it runs:
// lldb's status shows a stop when it lands while a logpoint's Python runs
// (the logpoint's breakpoint, the step over it), which used to be taken as
// the target's stop, and the next continue then failed ("Process is
// running").
func TestWaitAmidLogpointHitsSeesNoStop(t *testing.T) {
	ctx := context.Background()
	b := loopWithLogpoint(t, "100000000", "{i}")
	debugtest.RunUntilLogged(t, b)
	for i := range 8 {
		st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 300 * time.Millisecond})
		if !errors.Is(err, debugger.ErrTimeout) || st.Status != debugger.StatusRunning {
			t.Fatalf("continue %d: %+v (stop %v), %v; want the target running", i, st, st.LastStop, err)
		}
		st, err = b.WaitStop(ctx, 100*time.Millisecond)
		if !errors.Is(err, debugger.ErrTimeout) || st.Status != debugger.StatusRunning {
			t.Fatalf("wait %d: %+v (stop %v), %v; want the target running", i, st, st.LastStop, err)
		}
	}
	if news, _ := b.Logpoints().TakeNew(); news.New == 0 {
		t.Fatal("no logpoint hit while the target ran")
	}
	if st, err := b.Pause(ctx); err != nil || st.Status != debugger.StatusStopped || st.LastStop.Reason != debugger.StopPause {
		t.Fatalf("pause: %+v, %v", st, err)
	}
}

// loopWithLogpoint launches the loop program for n iterations under lldb,
// stopped on entry, with a logpoint of msg on the loop's step.
func loopWithLogpoint(t *testing.T, n, msg string) *Backend {
	t.Helper()
	ctx := context.Background()
	b := newBackend(t)
	if _, err := b.Launch(ctx, debugger.LaunchSpec{Program: crashers.Build(t, "loop"), Args: []string{n}, StopOnEntry: true}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Detach(context.Background()) })
	if _, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{File: "loop.c", Line: 7, LogMessage: msg}); err != nil {
		t.Fatal(err)
	}
	return b
}
