package spawn_test

import (
	"context"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// TestStallEndsRunAsTimeout: a stall found takes the stacks (OnHang with
// HangStall, the group alive) and ends the run long before its time limit.
func TestStallEndsRunAsTimeout(t *testing.T) {
	var h hangRecorder
	watched := make(chan int, 1)
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv: []string{crashers.Build(t, "sleeper"), "600"}, Timeout: 10 * time.Minute, OnHang: h.onHang,
		Stall: func(_ context.Context, pgid int) bool { watched <- pgid; return true },
	})
	if err != nil {
		t.Fatal(err)
	}
	if pgid := <-watched; pgid != res.Pid {
		t.Errorf("the watch was given %d, want the group %d", pgid, res.Pid)
	}
	calls, alive := h.got()
	if len(calls) != 1 || calls[0].Reason != spawn.HangStall || !alive[0] {
		t.Fatalf("OnHang calls %+v (alive %v), want one stall call while alive", calls, alive)
	}
	if !res.Stalled || !res.TimedOut || res.SignalName != "SIGTERM" || res.Duration > time.Minute {
		t.Errorf("got %+v, want stalled, timed out, ended by our SIGTERM at once", res)
	}
}

// TestStallWatchEndsWithLeader: a watch that finds nothing is ended when
// the leader exits, and the run is its own.
func TestStallWatchEndsWithLeader(t *testing.T) {
	ended := make(chan struct{})
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv: []string{"true"},
		Stall: func(ctx context.Context, _ int) bool {
			<-ctx.Done()
			close(ended)
			return false
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	default:
		t.Fatal("the watch was still running when the result came")
	}
	if res.Stalled || res.TimedOut || !res.Success() {
		t.Errorf("got %+v, want a plain success", res)
	}
}

// TestStallAfterTimeoutChangesNothing: a stall found while a timeout's
// kill is under way does not make the run a stall.
func TestStallAfterTimeoutChangesNothing(t *testing.T) {
	h := hangRecorder{block: true}
	hooked := make(chan struct{})
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv: []string{crashers.Build(t, "sleeper"), "600"}, Timeout: 50 * time.Millisecond, HangLimit: 300 * time.Millisecond,
		OnHang: func(ctx context.Context, hg spawn.Hang) {
			close(hooked)
			h.onHang(ctx, hg)
		},
		Stall: func(ctx context.Context, _ int) bool {
			select {
			case <-hooked:
				return true
			case <-ctx.Done():
				return false
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	calls, _ := h.got()
	if res.Stalled || !res.TimedOut || len(calls) != 1 || calls[0].Reason != spawn.HangTimeout {
		t.Errorf("got %+v, OnHang %+v: want a timeout only", res, calls)
	}
}
