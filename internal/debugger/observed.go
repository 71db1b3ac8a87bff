package debugger

import (
	"context"
	"time"
)

// observed is a session's Backend as Manager.Backend hands it out: each
// call that may move the target or its breakpoints is noted, the top
// frames of a stop are kept when a call asks for them, and a call's end
// looks at a new stop's frames (Manager.look) when none were asked for, so
// that a reader learns them without sending the debugger anything. Every
// call that reaches the debugger is counted in the session's gate, so
// that the Manager's own look never runs beside one.
type observed struct {
	Backend
	m *Manager
	s *session
}

// Unwrap returns the backend a Manager's Backend hands out calls to, for
// what only the backend's own type offers (tests reach a debugger's pid).
func Unwrap(b Backend) Backend {
	if o, ok := b.(*observed); ok {
		return o.Backend
	}
	return b
}

// moved ends a call that may have moved the target or its breakpoints:
// the frames of a new stop are fetched before the call answers, then the
// change is noted.
func (o *observed) moved(ctx context.Context) {
	o.m.look(ctx, o.s, true)
	o.m.note(o.s)
}

// read ends a call that only reads, which may still learn of a new stop
// (lldb's command line reports one to any command): its frames are
// fetched, and the change noted when they are kept.
func (o *observed) read(ctx context.Context) {
	if o.m.look(ctx, o.s, true) {
		o.m.note(o.s)
	}
}

func (o *observed) Continue(ctx context.Context, opts ContinueOptions) (State, error) {
	defer o.moved(ctx)
	o.forgetThreads()
	defer o.m.enter(o.s)()
	return o.Backend.Continue(ctx, opts)
}

func (o *observed) Step(ctx context.Context, kind StepKind, thread int, wait time.Duration) (State, error) {
	defer o.moved(ctx)
	o.forgetThreads()
	defer o.m.enter(o.s)()
	return o.Backend.Step(ctx, kind, thread, wait)
}

func (o *observed) Pause(ctx context.Context) (State, error) {
	defer o.moved(ctx)
	o.forgetThreads()
	defer o.m.enter(o.s)()
	return o.Backend.Pause(ctx)
}

func (o *observed) WaitStop(ctx context.Context, d time.Duration) (State, error) {
	defer o.moved(ctx)
	defer o.m.enter(o.s)()
	return o.Backend.WaitStop(ctx, d)
}

func (o *observed) AddBreakpoint(ctx context.Context, spec BreakpointSpec) (Breakpoint, error) {
	defer o.moved(ctx)
	defer o.m.enter(o.s)()
	return o.Backend.AddBreakpoint(ctx, spec)
}

func (o *observed) RemoveBreakpoint(ctx context.Context, id int) error {
	defer o.moved(ctx)
	defer o.m.enter(o.s)()
	return o.Backend.RemoveBreakpoint(ctx, id)
}

func (o *observed) RawCommand(ctx context.Context, command string) (string, error) {
	defer o.moved(ctx) // a raw command may resume or stop the target
	o.forgetThreads()
	defer o.m.enter(o.s)()
	return o.Backend.RawCommand(ctx, command)
}

// Threads answers the threads kept for the stop, if any, else asks.
func (o *observed) Threads(ctx context.Context) ([]Thread, error) {
	defer o.m.enter(o.s)()
	o.m.mu.Lock()
	l, ok := o.s.seen.keptThreads(o.Backend.State())
	o.m.mu.Unlock()
	if ok {
		return l.Threads, nil
	}
	return o.Backend.Threads(ctx)
}

// threadList is ListThreads through the Manager: the list kept for the
// stop, else the backend's, kept when the stop did not change meanwhile.
func (o *observed) threadList(ctx context.Context) (ThreadList, error) {
	leave := o.m.enter(o.s)
	before := o.Backend.State()
	o.m.mu.Lock()
	l, ok := o.s.seen.keptThreads(before)
	o.m.mu.Unlock()
	if ok {
		leave()
		return l, nil
	}
	l, err := listThreads(ctx, o.Backend)
	after := o.Backend.State()
	leave()
	if err != nil || before.LastStop == nil || after.LastStop == nil || !before.LastStop.At.Equal(after.LastStop.At) {
		o.read(ctx)
		return l, err
	}
	o.m.mu.Lock()
	o.s.seen.threadsAt, o.s.seen.threads = after.LastStop.At, &l
	o.m.mu.Unlock()
	return l, nil
}

// forgetThreads drops the kept thread list: the call about to run may
// move the target (a stop's time tells a new stop too, but not a target
// that runs on from the same one).
func (o *observed) forgetThreads() {
	o.m.mu.Lock()
	o.s.seen.threads = nil
	o.m.mu.Unlock()
}

func (o *observed) Evaluate(ctx context.Context, expr string, frame int) (Variable, error) {
	defer o.moved(ctx) // an expression may call code that stops
	o.forgetThreads()
	defer o.m.enter(o.s)()
	return o.Backend.Evaluate(ctx, expr, frame)
}

func (o *observed) Variables(ctx context.Context, req VariablesRequest) ([]Variable, error) {
	defer o.read(ctx)
	defer o.m.enter(o.s)()
	return o.Backend.Variables(ctx, req)
}

// Stack keeps the top frames of the stopped thread's stack (thread 0, or
// the thread of the last stop) when the stop did not change meanwhile.
func (o *observed) Stack(ctx context.Context, thread, maxFrames int) ([]Frame, error) {
	leave := o.m.enter(o.s)
	before := o.Backend.State().LastStop
	frames, err := o.Backend.Stack(ctx, thread, maxFrames)
	after := o.Backend.State().LastStop
	leave()
	if err != nil || len(frames) == 0 || before == nil || after == nil || !before.At.Equal(after.At) ||
		thread != 0 && thread != after.ThreadID {
		o.read(ctx)
		return frames, err
	}
	o.m.mu.Lock()
	o.s.seen.keepFrames(after.At, frames)
	o.m.mu.Unlock()
	o.m.note(o.s) // the frames may tell which breakpoint was hit
	return frames, err
}
