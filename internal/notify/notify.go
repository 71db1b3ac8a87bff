// Package notify tells waiters that something changed: each waiter gets a
// channel that the next change closes. It is the one such notifier for the
// store's entries, the sessions and the web page's poller.
package notify

import "sync"

// Changes is a change notifier; its zero value is ready to use. A change
// with no waiter costs nothing and is not remembered: a waiter asks for
// the channel, then reads the state, then waits, so no change is missed.
type Changes struct {
	mu sync.Mutex
	ch chan struct{}
}

// Wait returns a channel closed at the next change.
func (c *Changes) Wait() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.ch
}

// Notify closes the channel every current waiter holds.
func (c *Changes) Notify() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch != nil {
		close(c.ch)
		c.ch = nil
	}
}
