package testutil

import (
	"bytes"
	"context"
	"sync"
)

// ExpireOn is a context whose deadline passes when its marker first
// appears in what is written to it (pass it as a sink of the program's
// output): a timeout at a known point of the program, not after a guessed
// delay. Err then reports context.DeadlineExceeded, as a real deadline
// would.
type ExpireOn struct {
	context.Context
	marker []byte
	mu     sync.Mutex
	seen   []byte // the tail that may hold a split marker
	done   chan struct{}
	once   sync.Once
}

// NewExpireOn returns a context that expires when marker is written.
func NewExpireOn(marker string) *ExpireOn {
	return &ExpireOn{Context: context.Background(), marker: []byte(marker), done: make(chan struct{})}
}

// Done is closed when the marker has been written.
func (e *ExpireOn) Done() <-chan struct{} { return e.done }

// Err is context.DeadlineExceeded once the marker was written.
func (e *ExpireOn) Err() error {
	select {
	case <-e.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// Expired reports whether the marker was seen.
func (e *ExpireOn) Expired() bool { return e.Err() != nil }

func (e *ExpireOn) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seen = append(e.seen, p...)
	if bytes.Contains(e.seen, e.marker) {
		e.once.Do(func() { close(e.done) })
	}
	if keep := len(e.marker); len(e.seen) > keep {
		e.seen = append(e.seen[:0], e.seen[len(e.seen)-keep:]...)
	}
	return len(p), nil
}
