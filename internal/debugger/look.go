package debugger

import (
	"context"
	"time"
)

// lookWait bounds the Manager's own look at a stop's frames: a debugger
// that does not answer a short backtrace in it is left to the next call.
const lookWait = 10 * time.Second

// Notifier is a Backend that tells of a change no call may be waiting for:
// the target stopped (a breakpoint hit after a continue that did not wait),
// exited, or its debugger died. A DAP adapter's events are such reports;
// lldb's command line prints them between commands, where its backend
// watches while the target runs.
type Notifier interface {
	// NotifyChanges has f called after each such change, whether a call
	// waits for it or not. f must not block.
	NotifyChanges(f func())
}

// gate orders the calls through the Manager on one session and the
// Manager's own look at a stop's frames: calls run together as before,
// the look only while none runs, and a call that comes during a look
// waits for it to end (lookWait at most). Guarded by Manager.mu.
type gate struct {
	calls int           // calls through the Manager under way
	look  chan struct{} // closed when the look under way ends; nil: none
}

// enter counts a call through the Manager on s, once no look is under
// way; the function it returns ends the call.
func (m *Manager) enter(s *session) (leave func()) {
	m.mu.Lock()
	for s.gate.look != nil {
		ch := s.gate.look
		if m.waitsForLook != nil {
			m.waitsForLook()
		}
		m.mu.Unlock()
		<-ch
		m.mu.Lock()
	}
	s.gate.calls++
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		s.gate.calls--
		m.mu.Unlock()
	}
}

// look fetches the top frames of s's stop once a stop, when the Manager
// has none of it and no call through the Manager runs on s (a call's own
// end looks): the page then shows every stop's frames without ever
// sending the debugger anything beside a call. A stop's frames are
// fetched at most once, kept only when the stop is still the same after;
// a failure leaves them out and says nothing. With wait, a look already
// under way is waited for (a call's end: its answer and the frames come
// together). It reports whether frames were kept.
func (m *Manager) look(ctx context.Context, s *session, wait bool) bool {
	st := s.backend.State()
	m.mu.Lock()
	if ch := s.gate.look; ch != nil {
		m.mu.Unlock()
		if wait {
			select {
			case <-ch:
			case <-ctx.Done():
			}
		}
		return false
	}
	if s.gate.calls > 0 || !s.seen.wants(st) {
		m.mu.Unlock()
		return false
	}
	done := make(chan struct{})
	s.gate.look, s.seen.looked = done, st.LastStop.At
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		s.gate.look = nil
		m.mu.Unlock()
		close(done)
	}()
	// Not the caller's cancellation: an lldb command cut short is
	// interrupted, which the look must never cause.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookWait)
	defer cancel()
	for again := true; ; again = false {
		frames, err := s.backend.Stack(ctx, 0, SeenFrames)
		now := s.backend.State()
		after := now.LastStop
		if err != nil || len(frames) == 0 || after == nil {
			return false
		}
		if after.At.Equal(st.LastStop.At) {
			m.mu.Lock()
			s.seen.keepFrames(after.At, frames)
			m.mu.Unlock()
			return true
		}
		// The look's own command learnt of a newer stop (lldb's command
		// line tells a stop to the next command, and under load a
		// continue's wait may end at a step's stop first): look at that
		// one, once.
		if !again || now.Status != StatusStopped {
			return false
		}
		st = now
		m.mu.Lock()
		s.seen.looked = after.At
		m.mu.Unlock()
	}
}

// lookLater looks at s's stop on a goroutine of its own (the Manager's
// Close waits for it), then notes s when told says to or frames were
// kept: a Notifier's change, or a stop Overviews found without frames.
func (m *Manager) lookLater(s *session, told bool) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.looks.Add(1)
	m.mu.Unlock()
	go func() {
		defer m.looks.Done()
		if m.look(context.Background(), s, false) || told {
			m.note(s)
		}
	}()
}
