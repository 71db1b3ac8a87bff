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

	mu      sync.Mutex
	buf     []byte
	dropped int
}

func newSink(max int) *sink {
	return &sink{max: max, notify: make(chan struct{}, 1)}
}

func (s *sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.buf = append(s.buf, p...)
	if over := len(s.buf) - s.max; over > 0 {
		s.buf = append(s.buf[:0], s.buf[over:]...)
		s.dropped += over
	}
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (s *sink) reset() {
	s.mu.Lock()
	s.buf, s.dropped = s.buf[:0], 0
	s.mu.Unlock()
}

// text is the output so far with ANSI sequences stripped, prefixed with a
// note when the beginning was dropped.
func (s *sink) text() string {
	s.mu.Lock()
	raw, dropped := string(s.buf), s.dropped
	s.mu.Unlock()
	t := StripANSI(raw)
	if dropped > 0 {
		t = "[... " + strconv.Itoa(dropped) + " bytes of earlier output dropped ...]\n" + t
	}
	return t
}
