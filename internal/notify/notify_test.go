package notify

import "testing"

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestChanges(t *testing.T) {
	var c Changes
	c.Notify() // no waiter: nothing to close, nothing remembered
	a, b := c.Wait(), c.Wait()
	if closed(a) || a != b {
		t.Fatal("waiters before a change share one open channel")
	}
	c.Notify()
	if !closed(a) {
		t.Fatal("a change closes the waiters' channel")
	}
	next := c.Wait()
	if closed(next) {
		t.Fatal("a wait after the change waits for the next one")
	}
	c.Notify()
	c.Notify()
	if !closed(next) {
		t.Fatal("the next change closes it")
	}
}
