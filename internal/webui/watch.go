package webui

import (
	"context"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/notify"
	"github.com/triage-dev/triage/internal/tick"
)

// watch is the one poller of the store's Version that every open event
// stream shares, for the changes another process sharing the store makes
// (which Store.Changed cannot see): started by the first stream, stopped
// with the last, so that N open pages cost one query per tick, not N.
type watch struct {
	every time.Duration
	// ticks, when set (tests), gives the poller its ticks and the function
	// that ends them, instead of a time.Ticker of every.
	ticks func() (<-chan time.Time, func())
	// polled, when set (tests), is told of every poll once it is done.
	polled func()

	mu      sync.Mutex
	users   int            // open streams; guarded by mu
	stop    func()         // ends the running poller; guarded by mu
	changed notify.Changes // told when a poll sees another version
	version string         // the version last read; guarded by mu
}

// join counts one more stream, starting the poller over read (the store's
// Version) for the first; leave, once the stream ends, stops it with the
// last. The first join reads the version the polls compare with.
func (w *watch) join(ctx context.Context, read func(context.Context) (string, error)) (leave func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.users++; w.users == 1 {
		w.version, _ = read(ctx)
		w.start(read)
	}
	var once sync.Once
	return func() { once.Do(w.leave) }
}

// start runs the poller; w.mu is held.
func (w *watch) start(read func(context.Context) (string, error)) {
	ctx, cancel := context.WithCancel(context.Background())
	ticks := w.ticks
	if ticks == nil {
		t := time.NewTicker(w.every)
		ticks = func() (<-chan time.Time, func()) { return t.C, t.Stop }
	}
	ch, end := ticks()
	t := tick.On(ctx, ch, func() { w.poll(ctx, read) })
	w.stop = func() {
		cancel()
		t.Stop() // waits for a poll in progress: w.mu must not be held
		end()
	}
}

func (w *watch) leave() {
	w.mu.Lock()
	w.users--
	var stop func()
	if w.users == 0 {
		stop, w.stop = w.stop, nil
	}
	w.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// poll reads the version and tells the streams when it moved.
func (w *watch) poll(ctx context.Context, read func(context.Context) (string, error)) {
	v, err := read(ctx)
	w.mu.Lock()
	moved := err == nil && v != w.version
	if moved {
		w.version = v
	}
	w.mu.Unlock()
	if moved {
		w.changed.Notify()
	}
	if w.polled != nil {
		w.polled()
	}
}

// next returns a channel closed when a poll next sees another version.
func (w *watch) next() <-chan struct{} { return w.changed.Wait() }

// streams is the number of open streams.
func (w *watch) streams() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.users
}
