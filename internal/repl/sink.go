package repl

import (
	"strconv"
	"sync"
)

// sink collects an engine's stdout and stderr. Write never blocks (spawn's
// stream goroutines call it), keeps at most max bytes (dropping the oldest, so
// the sentinel at the end is never lost) and pokes notify.
type sink struct {
	max    int
	notify chan struct{} // 1-buffered: "something arrived since you last looked"
	// idle is notify's twin for Session.AwaitOutput, which reads output
	// between commands: it must never take an exchange's wake-up.
	idle chan struct{}

	mu      sync.Mutex
	buf     []byte
	dropped int
	resets  int // counts reset: a command began
}

func newSink(max int) *sink {
	return &sink{max: max, notify: make(chan struct{}, 1), idle: make(chan struct{}, 1)}
}

func (s *sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.buf = append(s.buf, p...)
	if over := len(s.buf) - s.max; over > 0 {
		s.buf = append(s.buf[:0], s.buf[over:]...)
		s.dropped += over
	}
	s.mu.Unlock()
	for _, ch := range [...]chan struct{}{s.notify, s.idle} {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

func (s *sink) reset() {
	s.mu.Lock()
	s.buf, s.dropped = s.buf[:0], 0
	s.resets++
	s.mu.Unlock()
}

// began is the number of commands begun so far (resets).
func (s *sink) began() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resets
}

// text is the output so far with ANSI sequences stripped, prefixed with a
// note when the beginning was dropped.
func (s *sink) text() string {
	t, _ := s.textSince()
	return t
}

// textSince is text and, read with it, the number of commands begun.
func (s *sink) textSince() (string, int) {
	s.mu.Lock()
	raw, dropped, resets := string(s.buf), s.dropped, s.resets
	s.mu.Unlock()
	t := StripANSI(raw)
	if dropped > 0 {
		t = "[... " + strconv.Itoa(dropped) + " bytes of earlier output dropped ...]\n" + t
	}
	return t, resets
}
