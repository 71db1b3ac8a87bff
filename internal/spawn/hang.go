package spawn

import (
	"context"
	"time"
)

// DefaultHangLimit bounds Spec.OnHang when Spec.HangLimit is 0: as long as
// internal/hang gives a capture, whose debugger may take seconds to attach
// on a loaded machine; the bound is for a hook that never returns.
const DefaultHangLimit = 20 * time.Second

// HangReason says why a process group is about to be killed as hung.
type HangReason string

const (
	// HangTimeout: Spec.Timeout or the context's deadline passed.
	HangTimeout HangReason = "timeout"
	// HangIgnoredTerm: Stop sent SIGTERM and the group outlived the grace
	// period.
	HangIgnoredTerm HangReason = "ignored SIGTERM"
	// HangStall: Spec.Stall found the group making no progress.
	HangStall HangReason = "stall"
	// HangStopped: StopWithStacks, for a group its caller found stuck.
	HangStopped HangReason = "stopped while stuck"
)

// Hang is what Spec.OnHang is told.
type Hang struct {
	Pgid   int // the process group, still alive
	Reason HangReason
}

// hangHook runs Spec.OnHang once, in its own goroutine, so that the
// supervisor keeps reaping and listening to Stop while it runs.
type hangHook struct {
	fn      func(context.Context, Hang)
	limit   time.Duration
	started bool
	cancel  context.CancelFunc
	ended   chan struct{} // closed when fn returned
	timer   *time.Timer
	then    func() // what the supervisor does once the hook is over
}

// start runs the hook unless there is none or it already ran, and returns
// a channel that fires when the kill may proceed: fn returned or the limit
// passed.
func (h *hangHook) start(pgid int, reason HangReason, then func()) (<-chan struct{}, bool) {
	if h.fn == nil || h.started {
		return nil, false
	}
	h.started, h.then = true, then
	ctx, cancel := context.WithTimeout(context.Background(), h.limit)
	h.cancel = cancel
	h.ended = make(chan struct{})
	go func() {
		defer close(h.ended)
		h.fn(ctx, Hang{Pgid: pgid, Reason: reason})
	}()
	over := make(chan struct{})
	h.timer = time.AfterFunc(h.limit, func() { close(over) })
	go func() {
		select {
		case <-h.ended:
			if h.timer.Stop() {
				close(over)
			}
		case <-over:
		}
	}()
	return over, true
}

// abort ends a running hook early (the run was cancelled or stopped).
func (h *hangHook) abort() {
	if h.cancel != nil {
		h.cancel()
	}
}

// wait waits for a started hook's function to return, so that what it
// gathered is complete before the Result is published. fn honours its
// context, whose limit bounds this wait.
func (h *hangHook) wait() {
	if h.ended != nil {
		<-h.ended
		h.cancel()
	}
}
