package lldbcli

import (
	"context"

	"github.com/triage-dev/triage/internal/debugger"
)

// NotifyChanges implements debugger.Notifier: f is told when the target
// stops or exits while no call waits for it (after a continue that did not
// wait, or whose wait ran out). lldb prints such a report by itself, between
// commands; awaitStop reads it there.
func (b *Backend) NotifyChanges(f func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.notify = f
	if b.state.Status == debugger.StatusRunning {
		b.awaitStop() // launched or attached running, before anyone listened
	}
}

// awaitStop watches lldb's output between commands, while the target runs,
// for the report of its stop or exit: the report updates the state and
// notify is told. A command that begins ends the watch (its caller reads
// the output); observe starts another after it when the target still runs.
// One watch at a time; Dispose ends it. b.mu is held.
func (b *Backend) awaitStop() {
	if b.notify == nil || b.sess == nil || b.disposed {
		return
	}
	if b.idleCancel != nil {
		b.idleAgain = true // the watch under way may be ending: one more after it
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.idleCancel, b.idleAgain = cancel, false
	b.idle.Add(1)
	sess := b.sess
	go func() {
		defer b.idle.Done()
		defer cancel()
		// settled, not stopShown: a stop followed by "resuming" is an
		// earlier stop's, not the one awaited.
		out, ok := sess.AwaitOutput(ctx, settled)
		st := b.State()
		if ok {
			st = b.observe(out) // a watch under way: observe starts none
		}
		b.mu.Lock()
		b.idleCancel = nil
		// Another watch when a command's end asked for one, not after a
		// report read as running (it would read the same output again).
		again := !ok && b.idleAgain && b.state.Status == debugger.StatusRunning
		f := b.notify
		if again {
			b.awaitStop()
		}
		b.mu.Unlock()
		if ok && st.Status != debugger.StatusRunning {
			f()
		}
	}()
}
