package lldbcli

import (
	"context"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
)

// pausedAfterLoop launches the target to wait forever in pause() after its
// loop, stopped first at add (the breakpoint then removed), and continues
// it without waiting: it then runs until the test signals it.
func pausedAfterLoop(t *testing.T, b debugger.Backend) int {
	t.Helper()
	ctx := context.Background()
	st, err := b.Launch(ctx, waitSpec(t))
	if err != nil || st.Status != debugger.StatusStopped {
		t.Fatalf("launch: %+v %v", st, err)
	}
	return continuePastAdd(t, b)
}

// waitSpec launches the target to wait in pause() after its loop, with a
// breakpoint at add, in main's loop: a signal sent once the target has
// stopped there never arrives before main.
func waitSpec(t *testing.T) debugger.LaunchSpec {
	return debugger.LaunchSpec{Program: build(t), Args: []string{"wait"}, Breakpoints: []debugger.BreakpointSpec{{Function: "add"}}}
}

// continuePastAdd removes the breakpoint at add and continues without
// waiting; it returns the target's pid.
func continuePastAdd(t *testing.T, b debugger.Backend) int {
	t.Helper()
	ctx := context.Background()
	if err := b.RemoveBreakpoint(ctx, 1); err != nil {
		t.Fatal(err)
	}
	st, err := b.Continue(ctx, debugger.ContinueOptions{})
	if err != nil || st.Status != debugger.StatusRunning {
		t.Fatalf("continue: %+v %v; want running (no wait)", st, err)
	}
	return st.Pid
}

// lldb's command line tells of a stop no call waits for: the backend reads
// lldb's report between commands while the target runs.
func TestBackendNotifiesStopNoCallWaitsFor(t *testing.T) {
	b := newBackend(t)
	told := make(chan struct{}, 16)
	b.NotifyChanges(func() { told <- struct{}{} })
	pid := pausedAfterLoop(t, b)
	if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil { // lldb stops the target on it
		t.Fatal(err)
	}
	select {
	case <-told:
	case <-time.After(20 * time.Second): // only ends a test that cannot pass
		t.Fatalf("no stop told: %+v", b.State())
	}
	if st := b.State(); st.Status != debugger.StatusStopped || st.LastStop == nil || st.LastStop.Signal != "SIGUSR1" {
		t.Fatalf("told of %+v (%+v), want a stop by SIGUSR1", st, st.LastStop)
	}
}

// Through the Manager, a stop no call waits for shows with its top frames
// (the page's Sessions view) without any further call.
func TestManagerSeesStopNoCallWaitsFor(t *testing.T) {
	changes := make(chan struct{}, 64)
	m := debugger.NewManager(debugger.Options{Backends: map[string]debugger.Factory{"lldb": Factory(nil)}, Dir: t.TempDir(),
		OnChange: func() {
			select {
			case changes <- struct{}{}:
			default:
			}
		}})
	t.Cleanup(m.Close)
	ctx := context.Background()
	info, err := m.Launch(ctx, "lldb", waitSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Backend(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(continuePastAdd(t, b), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	bound := time.After(20 * time.Second) // only ends a test that cannot pass
	for {
		if o := m.Overviews(ctx); len(o) == 1 && o[0].State.Status == debugger.StatusStopped && o[0].State.LastStop.Signal == "SIGUSR1" && len(o[0].Frames) > 0 {
			// The signal may land deep in libc (malloc): main is among the
			// kept frames unless the stack is deeper than what is kept.
			frames := o[0].Frames
			inMain := slices.ContainsFunc(frames, func(f debugger.Frame) bool { return f.Function == "main" })
			if len(frames) > debugger.SeenFrames || (!inMain && len(frames) < debugger.SeenFrames) {
				t.Fatalf("the stop's frames: %+v", frames)
			}
			return
		}
		select {
		case <-changes:
		case <-bound:
			t.Fatalf("the stop was not seen within 20 s of a continue that did not wait: %+v", m.Overviews(ctx))
		}
	}
}
