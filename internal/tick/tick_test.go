package tick

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// Every tick sent is one call; the channel is unbuffered, so a send returns
// only once the loop took the tick.
func TestOnCallsOncePerTick(t *testing.T) {
	ticks := make(chan time.Time)
	calls := make(chan int, 10)
	var n int
	tk := On(context.Background(), ticks, func() { n++; calls <- n })
	for i := 1; i <= 3; i++ {
		ticks <- time.Time{}
		if got := <-calls; got != i {
			t.Fatalf("call %d: got %d", i, got)
		}
	}
	tk.Stop()
	if n != 3 {
		t.Fatalf("calls = %d, want 3", n)
	}
}

// Stop waits for a call in progress: after it returns, nothing runs.
func TestStopWaitsForCallInProgress(t *testing.T) {
	ticks := make(chan time.Time)
	entered, release := make(chan struct{}), make(chan struct{})
	var finished atomic.Bool
	tk := On(context.Background(), ticks, func() {
		close(entered)
		<-release
		finished.Store(true)
	})
	ticks <- time.Time{}
	<-entered
	stopped := make(chan struct{})
	go func() { tk.Stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("Stop returned while the call was still running")
	default:
	}
	close(release)
	<-stopped
	if !finished.Load() {
		t.Fatal("Stop returned before the call finished")
	}
	// No further tick is taken: a send would block forever, so none is
	// attempted; a second Stop is harmless.
	tk.Stop()
}

// A cancelled context ends the loop without Stop; later ticks are not taken.
func TestContextEndsTheLoop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ticks := make(chan time.Time, 1)
	var calls atomic.Int32
	tk := On(ctx, ticks, func() { calls.Add(1) })
	cancel()
	tk.wg.Wait() // the loop has returned
	ticks <- time.Time{}
	tk.Stop()
	if c := calls.Load(); c != 0 {
		t.Fatalf("calls after cancel = %d, want 0", c)
	}
	if len(ticks) != 1 {
		t.Fatal("a tick sent after the cancellation was consumed")
	}
}

// Start ticks on its own clock until stopped.
func TestStartTicks(t *testing.T) {
	called := make(chan struct{}, 1)
	tk := Start(context.Background(), time.Millisecond, func() {
		select {
		case called <- struct{}{}:
		default:
		}
	})
	<-called
	tk.Stop()
}
