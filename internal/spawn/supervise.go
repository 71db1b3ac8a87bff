package spawn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

type supervision struct {
	timeout, grace, waitDelay time.Duration
	oomBefore                 int64
	comb                      *combiner
	hang                      hangHook
	onExit                    func()
	stall                     func(context.Context, int) bool
}

type leaderExit struct {
	state *os.ProcessState
	err   error
	at    time.Time
}

// supervise is the only goroutine that reaps the leader and signals the
// group. Its life has two phases:
//
//  1. Until the leader exits: on timeout, context cancellation or Stop,
//     SIGTERM the group and SIGKILL it after the grace period.
//  2. After: give descendants that still hold the output pipes up to
//     waitDelay to finish, SIGKILL whatever is left in the group, then stop
//     reading even if a process that escaped the group (setsid) still holds
//     a pipe. This is os/exec's WaitDelay idea applied to the whole group,
//     so no run can hang on a grandchild and none leaves one behind.
func (p *Process) supervise(ctx context.Context, sv supervision) {
	// One supervision: its hang hook's state is read after the loop.
	w := &supervisor{p: p, sv: &sv,
		res: &Result{Pid: p.pid, Argv: p.argv, Path: p.path, Dir: p.dir, Started: p.started, ExitCode: -1, Timeout: sv.timeout}}

	waitc := make(chan leaderExit, 1)
	go func() {
		st, err := p.os.Wait()
		waitc <- leaderExit{st, err, time.Now()}
	}()
	var timeoutC <-chan time.Time
	if sv.timeout > 0 {
		t := time.NewTimer(sv.timeout)
		defer t.Stop()
		timeoutC = t.C
	}
	stallC, stopWatch := p.watchStall(sv.stall)
	exit := w.until(ctx, waitc, timeoutC, stallC)
	stopWatch()
	if sv.onExit != nil {
		sv.onExit()
	}
	sv.hang.wait()
	p.closeStdin()
	res := w.res
	res.OrphansKilled = p.reapGroup(sv.waitDelay)

	fillExit(res, exit)
	if res.Signaled && res.Signal == syscall.SIGKILL && !w.weKilled && sv.oomBefore >= 0 {
		if after := oomKills(); after > sv.oomBefore {
			res.OOMKilled = true
		}
	}
	p.result = res
	p.err = p.ioError(exit.err, sv.comb)
	close(p.done)
}

// supervisor is the state of one process's supervision until its leader
// exits.
type supervisor struct {
	p           *Process
	sv          *supervision
	res         *Result
	killC       <-chan time.Time // the grace after SIGTERM is over
	terminating bool
	weKilled    bool
	stopped     bool // by Stop
	// Before a hung group is killed (a timeout; a Stop whose SIGTERM was
	// ignored), Spec.OnHang may take evidence from it; hangC fires when
	// the kill may proceed. Never for a cancellation.
	hangC <-chan struct{}
}

// until handles timeouts, cancellations and Stop until the leader exits,
// and returns its exit.
func (w *supervisor) until(ctx context.Context, waitc <-chan leaderExit, timeoutC <-chan time.Time, stallC <-chan struct{}) leaderExit {
	ctxDone := ctx.Done()
	for {
		select {
		case exit := <-waitc:
			return exit
		case <-timeoutC:
			w.timedOut(HangTimeout)
		case <-stallC:
			stallC = nil
			w.timedOut(HangStall)
		case <-ctxDone:
			ctxDone = nil
			// A context deadline is a timeout the caller chose to express
			// that way; anything else is a cancellation.
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				w.timedOut(HangTimeout)
				continue
			}
			w.res.Cancelled = true
			w.sv.hang.abort()
			w.terminate(w.sv.grace)
		case s := <-w.p.stopc:
			w.stop(s)
		case <-w.killC:
			w.graceOver()
		case <-w.hangC:
			w.hangC = nil
			w.sv.hang.then()
		}
	}
}

// stop handles a Stop: the stacks first when asked and nothing else is
// ending the group, then SIGTERM and SIGKILL after the grace.
func (w *supervisor) stop(s stopRequest) {
	w.res.Cancelled, w.stopped = true, true
	g := s.grace
	if g <= 0 {
		g = w.sv.grace
	}
	if s.stacks && !w.terminating && w.hangC == nil {
		var ok bool
		if w.hangC, ok = w.sv.hang.start(w.p.pid, HangStopped, func() { w.terminate(g) }); ok {
			return
		}
	}
	w.sv.hang.abort()
	w.terminate(g)
}

// watchStall runs the stall watch, when there is one: the channel fires
// if it finds a stall; stop ends it once the leader has exited.
func (p *Process) watchStall(watch func(context.Context, int) bool) (<-chan struct{}, func()) {
	if watch == nil {
		return nil, func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	stalled, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		if watch(ctx, p.pid) {
			close(stalled)
		}
	}()
	return stalled, func() {
		cancel()
		<-ended
	}
}

// terminate sends SIGTERM to the group, once, and SIGKILL after grace.
func (w *supervisor) terminate(grace time.Duration) {
	if w.terminating {
		return
	}
	w.terminating = true
	w.p.noteEscaped() // while the leader lives: their parent links end with it
	w.p.signalGroup(syscall.SIGTERM)
	w.p.signalEscaped(syscall.SIGTERM)
	w.p.signalGroup(syscall.SIGCONT) // a stopped process acts on SIGTERM only once continued
	w.p.signalEscaped(syscall.SIGCONT)
	w.killC = time.After(grace)
}

// timedOut ends the run for time: its limit passed, or it stalled
// (reason HangStall) before.
func (w *supervisor) timedOut(reason HangReason) {
	busy := w.hangC != nil || w.terminating
	if reason == HangStall {
		if busy {
			return // already ending: a stall found meanwhile changes nothing
		}
		w.res.Stalled = true
	}
	w.res.TimedOut = true
	if busy {
		return
	}
	var ok bool
	if w.hangC, ok = w.sv.hang.start(w.p.pid, reason, func() { w.terminate(w.sv.grace) }); !ok {
		w.terminate(w.sv.grace)
	}
}

// graceOver kills the group, after taking a hang's evidence when a Stop's
// SIGTERM was ignored.
func (w *supervisor) graceOver() {
	w.killC = nil
	if w.stopped && !w.res.TimedOut && w.p.groupAlive() {
		if w.hangC, _ = w.sv.hang.start(w.p.pid, HangIgnoredTerm, w.kill); w.hangC != nil {
			return
		}
	}
	w.kill()
}

func (w *supervisor) kill() {
	w.weKilled = true
	w.p.noteEscaped()
	w.p.signalGroup(syscall.SIGKILL)
	w.p.signalEscaped(syscall.SIGKILL)
}

// reapGroup runs phase 2 of supervise and reports whether it had to kill
// processes left in the group.
func (p *Process) reapGroup(waitDelay time.Duration) bool {
	drained := func(d time.Duration) bool {
		t := time.NewTimer(d)
		defer t.Stop()
		for _, s := range []*stream{p.stdout, p.stderr} {
			select {
			case <-s.done:
			case <-t.C:
				return false
			}
		}
		return true
	}
	drained(waitDelay)
	killed := false
	if p.groupAlive() {
		killed = true
		p.signalGroup(syscall.SIGKILL)
	}
	if len(p.escapedAlive()) > 0 {
		killed = true
		p.signalEscaped(syscall.SIGKILL)
	}
	if !drained(waitDelay) {
		// Someone outside the group holds a pipe: stop reading anyway.
		now := time.Now()
		p.stdout.r.SetReadDeadline(now)
		p.stderr.r.SetReadDeadline(now)
		<-p.stdout.done
		<-p.stderr.done
	}
	p.stdout.r.Close()
	p.stderr.r.Close()
	if killed {
		p.awaitGroupDeath(waitDelay)
	}
	return killed
}

// awaitGroupDeath waits, at most d, until every process left in the group
// has died. SIGKILL is delivered at once but a process takes a moment to
// die: its pipes close before it becomes a zombie, so the pipes' EOF alone
// does not mean the group is gone, and the caller is promised that it is.
func (p *Process) awaitGroupDeath(d time.Duration) {
	members, _ := GroupMembers(p.pid)
	pids := p.escapedAlive()
	for _, m := range members {
		pids = append(pids, m.Pid)
	}
	if len(pids) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for _, pid := range pids {
		WaitExited(ctx, pid)
	}
}

// signalGroup signals every process in the leader's group. ESRCH (the group
// is already empty) is not an error worth reporting.
func (p *Process) signalGroup(sig syscall.Signal) {
	syscall.Kill(-p.pid, sig)
}

// groupAlive reports whether any process is left in the group. Called after
// the leader is reaped; a group id cannot be reused while a member remains.
func (p *Process) groupAlive() bool {
	err := syscall.Kill(-p.pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func fillExit(res *Result, exit leaderExit) {
	if exit.state == nil {
		return
	}
	res.Duration = exit.at.Sub(res.Started)
	if ru, ok := exit.state.SysUsage().(*syscall.Rusage); ok && ru != nil {
		res.PeakRSS = maxRSSBytes(ru)
	}
	ws, ok := exit.state.Sys().(syscall.WaitStatus)
	if !ok {
		res.Exited = exit.state.Exited()
		res.ExitCode = exit.state.ExitCode()
		return
	}
	switch {
	case ws.Exited():
		res.Exited = true
		res.ExitCode = ws.ExitStatus()
	case ws.Signaled():
		res.Signaled = true
		res.Signal = ws.Signal()
		res.SignalName = SignalName(ws.Signal())
		res.CoreDumped = ws.CoreDump()
	}
}

func (p *Process) ioError(waitErr error, comb *combiner) error {
	var errs []error
	if waitErr != nil {
		errs = append(errs, fmt.Errorf("waiting for pid %d: %w", p.pid, waitErr))
	}
	for _, s := range []struct {
		name string
		st   *stream
	}{{"stdout", p.stdout}, {"stderr", p.stderr}} {
		if s.st.sinkErr != nil {
			errs = append(errs, fmt.Errorf("writing %s sink: %w", s.name, s.st.sinkErr))
		}
		if s.st.readErr != nil {
			errs = append(errs, fmt.Errorf("reading %s: %w", s.name, s.st.readErr))
		}
	}
	if comb != nil && comb.err != nil {
		errs = append(errs, fmt.Errorf("writing combined sink: %w", comb.err))
	}
	return errors.Join(errs...)
}
