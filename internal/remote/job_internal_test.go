package remote

import "testing"

// A program that started and ended before Start looked is a start, not a
// program that did not start, whichever of the two a select sees.
func TestAwaitStartOfAJobAlreadyEnded(t *testing.T) {
	p := &Process{startc: make(chan struct{}), done: make(chan struct{})}
	p.started(42)
	close(p.done)
	for i := range 1000 {
		if !p.awaitStart() {
			t.Fatalf("try %d: a job that started and ended was taken for one that did not start", i)
		}
	}
	ended := &Process{startc: make(chan struct{}), done: make(chan struct{})}
	close(ended.done)
	if ended.awaitStart() {
		t.Fatal("a job that ended without starting was taken for started")
	}
}
