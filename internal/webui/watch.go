package webui

import (
	"context"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/notify"
)

// watch is the one reader of the store's Version that every open event
// stream shares, and the one source of their "runs" events: it reads the
// version at each tick (for the changes another process sharing the store
// makes, which Store.Changed cannot see) and at each change this process
// makes (Store.Changed, at once), and tells the streams when it moved. A
// change is told once, by whichever read sees it first, so that one run
// reloads an open page once. Started by the first stream, stopped with
// the last, so that N open pages cost one query per tick, not N.
type watch struct {
	every time.Duration
	// ticks, when set (tests), gives the poller its ticks and the function
	// that ends them, instead of a time.Ticker of every.
	ticks func() (<-chan time.Time, func())
	// polled, when set (tests), is told of every read once it is done.
	polled func()

	mu      sync.Mutex
	users   int            // open streams; guarded by mu
	stop    func()         // ends the running poller; guarded by mu
	changed notify.Changes // told when a read sees another version
	version string         // the version last read; guarded by mu
}

// changeGap is the least time between two reads that this process's
// changes cause: a capture commits its output in many chunks, each a
// change, and a read per chunk would contend with the writer for the
// store. The changes within a gap are told by one read at its end.
const changeGap = 100 * time.Millisecond

// source is what the watch reads: the store's Version, and its
// in-process change notifier.
type source struct {
	version func(context.Context) (string, error)
	changed func() <-chan struct{}
}

// join counts one more stream, starting the poller over src for the
// first; leave, once the stream ends, stops it with the last. The first
// join reads the version the polls compare with.
func (w *watch) join(ctx context.Context, src source) (leave func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.users++; w.users == 1 {
		changed := src.changed() // before the read: a change after it is seen
		w.version, _ = src.version(ctx)
		w.start(src, changed)
	}
	var once sync.Once
	return func() { once.Do(w.leave) }
}

// start runs the poller from the store's changes subscribed to as changed;
// w.mu is held. Each subscription is taken before the read it triggers, so
// a change after the read is seen.
func (w *watch) start(src source, changed <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	ticks := w.ticks
	if ticks == nil {
		t := time.NewTicker(w.every)
		ticks = func() (<-chan time.Time, func()) { return t.C, t.Stop }
	}
	ch, end := ticks()
	done := make(chan struct{})
	go func() {
		defer close(done)
		var last time.Time
		var soon <-chan time.Time // a read put off after a change, see changeGap
		for {
			select {
			case <-ctx.Done():
				return
			case <-ch:
			case <-soon:
			case <-changed:
				if wait := changeGap - time.Since(last); wait > 0 {
					changed = src.changed()
					if soon == nil {
						soon = time.After(wait)
					}
					continue
				}
			}
			soon = nil
			changed = src.changed()
			last = time.Now()
			w.poll(ctx, src.version)
		}
	}()
	w.stop = func() {
		cancel()
		<-done // a read in progress ends first: w.mu must not be held
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

// next returns a channel closed when a read next sees another version.
func (w *watch) next() <-chan struct{} { return w.changed.Wait() }

// streams is the number of open streams.
func (w *watch) streams() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.users
}
