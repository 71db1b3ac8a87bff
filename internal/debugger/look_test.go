package debugger

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// stopper is a backend stopped at a stop the test sets, whose Continue
// runs until the test lets it end and whose Stack may be held up: the
// order of the Manager's look and the calls through it, which a real
// debugger's timing cannot show for certain, is seen from the inside.
type stopper struct {
	fakeBackend
	mu     sync.Mutex
	st     State
	stacks int // Stack calls
	// variablesBeside: a Variables call came while another call ran.
	variablesBeside bool
	vars            chan struct{} // when set, closed by a Variables call
	inCall          int           // calls under way (Continue, Stack, Variables)
	beside          int           // Stack calls that came while another call ran
	stackErr        error         // what Stack answers
	hold            chan struct{} // when set, Stack waits for it to close
	held            chan struct{} // with hold: closed when Stack waits
	running         chan struct{} // closed when a Continue is under way
	resume          chan struct{} // a Continue ends when it closes
	// tellOnStack, when set, is a stop the next Stack call learns of and
	// reports, as lldb's command line tells a stop to the next command.
	tellOnStack *Stop
}

func (f *stopper) stopAt(at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.st = State{Status: StatusStopped, LastStop: &Stop{Reason: StopBreakpoint, ThreadID: 1, At: at}}
}

func (f *stopper) State() State {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st
}

func (f *stopper) call() func() {
	f.mu.Lock()
	f.inCall++
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		f.inCall--
		f.mu.Unlock()
	}
}

func (f *stopper) Continue(context.Context, ContinueOptions) (State, error) {
	defer f.call()()
	close(f.running)
	<-f.resume
	f.stopAt(time.Now())
	return f.State(), nil
}

func (f *stopper) Variables(context.Context, VariablesRequest) ([]Variable, error) {
	f.mu.Lock()
	f.variablesBeside = f.variablesBeside || f.inCall > 0
	if f.vars != nil {
		close(f.vars)
	}
	f.mu.Unlock()
	defer f.call()()
	return nil, nil
}

func (f *stopper) Stack(context.Context, int, int) ([]Frame, error) {
	f.mu.Lock()
	f.stacks++
	if f.inCall > 0 {
		f.beside++
	}
	hold, err := f.hold, f.stackErr
	if f.tellOnStack != nil {
		f.st.LastStop, f.tellOnStack = f.tellOnStack, nil
	}
	f.mu.Unlock()
	defer f.call()()
	if hold != nil {
		close(f.held)
		<-hold
	}
	return []Frame{{Function: "add", File: "target.c", Line: 9}, {Function: "main"}}, err
}

func (f *stopper) counts() (stacks, beside int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stacks, f.beside
}

func newStopper(t *testing.T) (*Manager, *stopper, Backend) {
	t.Helper()
	f := &stopper{running: make(chan struct{}), resume: make(chan struct{})}
	f.st = State{Status: StatusRunning}
	m := NewManager(Options{Backends: map[string]Factory{"dap": func(Config) (Backend, error) { return f, nil }}, Dir: t.TempDir()})
	t.Cleanup(m.Close)
	info, err := m.Launch(context.Background(), "", LaunchSpec{Program: "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Backend(context.Background(), info.ID)
	if err != nil {
		t.Fatal(err)
	}
	return m, f, b
}

// The Manager's own look at a stop's frames never runs beside a call:
// while a continue runs, a stop Overviews finds is left alone, and the
// continue's own end looks once; later Overviews do not look again.
func TestLookWaitsForTheCalls(t *testing.T) {
	m, f, b := newStopper(t)
	ctx := context.Background()
	f.stopAt(time.Now()) // stopped, as a running target's debugger reported
	done := make(chan State)
	go func() {
		st, _ := b.Continue(ctx, ContinueOptions{Wait: time.Minute})
		done <- st
	}()
	<-f.running
	if o := m.Overviews(ctx); len(o) != 1 || len(o[0].Frames) != 0 {
		t.Fatalf("overviews during the continue: %+v", o)
	}
	// As a Notifier's report of the stop would, during the continue.
	if m.look(ctx, onlySession(m), false) {
		t.Error("the Manager looked at a stop during a call")
	}
	close(f.resume)
	<-done
	if o := m.Overviews(ctx); len(o) != 1 || len(o[0].Frames) != 2 || o[0].Frames[0].Function != "add" {
		t.Fatalf("overviews after the continue's stop: %+v", o)
	}
	m.Overviews(ctx)
	m.Close() // waits for any look Overviews started
	if stacks, beside := f.counts(); stacks != 1 || beside != 0 {
		t.Errorf("%d stack calls for one stop (want 1), %d beside a call (want 0)", stacks, beside)
	}
}

// A call that comes during the Manager's look waits for it to end; a look
// that fails leaves the frames out and is not tried again for that stop.
func TestCallsWaitForALook(t *testing.T) {
	m, f, b := newStopper(t)
	ctx := context.Background()
	hold := make(chan struct{})
	f.mu.Lock()
	f.hold, f.held, f.stackErr = hold, make(chan struct{}), errors.New("the adapter answered nothing")
	f.vars = make(chan struct{})
	f.mu.Unlock()
	waits := make(chan struct{})
	m.mu.Lock()
	m.waitsForLook = func() { close(waits) }
	m.mu.Unlock()
	f.stopAt(time.Now())
	m.Overviews(ctx) // starts the look
	<-f.held
	called := make(chan struct{})
	go func() {
		_, _ = b.Variables(ctx, VariablesRequest{})
		close(called)
	}()
	select {
	case <-waits:
	case <-f.vars:
		close(hold) // the look's end, which Close waits for
		t.Fatal("a call ran while the Manager's look was under way")
	}
	close(hold)
	<-called
	if o := m.Overviews(ctx); len(o) != 1 || len(o[0].Frames) != 0 {
		t.Fatalf("frames after a failed look: %+v", o)
	}
	m.Close()
	if stacks, beside := f.counts(); stacks != 1 || beside != 0 {
		t.Errorf("%d stack calls for one stop (want 1: a failure is not tried again), %d beside a call", stacks, beside)
	}
	if f.variablesBeside {
		t.Error("a call reached the debugger while the Manager's look was under way")
	}
}

// onlySession is the Manager's one session.
func onlySession(m *Manager) *session {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.sessions {
		return s
	}
	return nil
}

// A stop the look's own backtrace learns of (lldb's command line tells a
// stop to the next command; under load a continue's wait ended at a
// step's stop first) is looked at in turn: the call's end keeps the newer
// stop's frames, and Overviews show them without a look of its own.
func TestLookFollowsAStopItsOwnCommandLearns(t *testing.T) {
	m, f, b := newStopper(t)
	close(f.resume)
	f.mu.Lock()
	f.tellOnStack = &Stop{Reason: StopBreakpoint, ThreadID: 1, At: time.Now().Add(time.Second)}
	f.mu.Unlock()
	if _, err := b.Continue(context.Background(), ContinueOptions{}); err != nil {
		t.Fatal(err)
	}
	o := m.Overviews(context.Background())
	if len(o) != 1 || len(o[0].Frames) != 2 || o[0].State.LastStop == nil || !o[0].State.LastStop.At.Equal(f.State().LastStop.At) {
		t.Fatalf("overviews after a continue whose look learnt of a newer stop: %+v", o)
	}
	if stacks, _ := f.counts(); stacks != 2 {
		t.Fatalf("%d backtraces, want 2: the first stop's, then the newer one's", stacks)
	}
}
