// Package tick calls a function at an interval while work goes on: the
// progress reports of run, build and test, and the output flushes of
// background jobs. One loop, so that stopping, cancellation and the
// guarantee that nothing runs after Stop are the same everywhere.
package tick

import (
	"context"
	"sync"
	"time"
)

// Ticker calls a function on every tick until it is stopped or its context
// is done.
type Ticker struct {
	done   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
	ticker *time.Ticker // nil when the ticks come from a caller's channel
}

// Start calls f every interval (a second when interval is not positive)
// until Stop is called or ctx is done.
func Start(ctx context.Context, interval time.Duration, f func()) *Ticker {
	if interval <= 0 {
		interval = time.Second
	}
	t := time.NewTicker(interval)
	tk := On(ctx, t.C, f)
	tk.ticker = t
	return tk
}

// On calls f for every value received from ticks until Stop is called or ctx
// is done. Tests drive a Ticker through it with a channel of their own.
func On(ctx context.Context, ticks <-chan time.Time, f func()) *Ticker {
	tk := &Ticker{done: make(chan struct{})}
	tk.wg.Add(1)
	go func() {
		defer tk.wg.Done()
		for {
			// A stop or a cancellation wins over a tick that is also ready.
			select {
			case <-tk.done:
				return
			case <-ctx.Done():
				return
			default:
			}
			select {
			case <-tk.done:
				return
			case <-ctx.Done():
				return
			case <-ticks:
				f()
			}
		}
	}()
	return tk
}

// Stop ends the calls and waits for one in progress to return: once Stop
// returns, f is not called again. Stop may be called more than once.
func (t *Ticker) Stop() {
	t.once.Do(func() {
		close(t.done)
		if t.ticker != nil {
			t.ticker.Stop()
		}
	})
	t.wg.Wait()
}
