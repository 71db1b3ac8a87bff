package dap

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	godap "github.com/google/go-dap"

	"github.com/triage-dev/triage/internal/debugger"
)

// Launch implements debugger.Backend: initialize, launch, breakpoints from
// spec, configurationDone.
func (b *Backend) Launch(ctx context.Context, spec debugger.LaunchSpec) (debugger.State, error) {
	ctx, cancel := withDefaultTimeout(ctx, startTimeout)
	defer cancel()
	program, err := b.prepare(ctx, target{host: spec.SSHHost, program: spec.Program})
	if err != nil {
		return debugger.State{}, err
	}
	spec.Program = program
	if err := b.start(ctx, spec.Program); err != nil {
		return debugger.State{}, err
	}
	b.mu.Lock()
	b.launched = true
	b.entryPending = spec.StopOnEntry
	if spec.SSHHost == "" {
		b.srcDirs = sourceDirs(spec.Dir, spec.Program)
	}
	args := b.fl.launch(spec)
	b.mu.Unlock()
	if err := b.configure(ctx, "launch", args, spec.Breakpoints); err != nil {
		return b.State(), fmt.Errorf("launching %s: %w", spec.Program, err)
	}
	return b.afterStart(), nil
}

// Attach implements debugger.Backend.
func (b *Backend) Attach(ctx context.Context, spec debugger.AttachSpec) (debugger.State, error) {
	if spec.Pid <= 0 {
		return debugger.State{}, fmt.Errorf("attaching: invalid pid %d", spec.Pid)
	}
	ctx, cancel := withDefaultTimeout(ctx, startTimeout)
	defer cancel()
	if _, err := b.prepare(ctx, target{host: spec.SSHHost, program: spec.Program, pid: spec.Pid}); err != nil {
		return debugger.State{}, err
	}
	b.mu.Lock()
	b.adapter = spec.Debugger
	b.mu.Unlock()
	if err := b.start(ctx, spec.Program); err != nil {
		return debugger.State{}, err
	}
	b.mu.Lock()
	args := b.fl.attach(spec)
	b.state.Pid = spec.Pid
	if spec.SSHHost == "" {
		b.srcDirs = sourceDirs("", spec.Program)
	}
	b.mu.Unlock()
	if err := b.configure(ctx, "attach", args, nil); err != nil {
		return b.State(), fmt.Errorf("attaching to pid %d: %w", spec.Pid, err)
	}
	return b.afterStart(), nil
}

// LoadCore implements debugger.Backend.
func (b *Backend) LoadCore(ctx context.Context, spec debugger.CoreSpec) (debugger.State, error) {
	ctx, cancel := withDefaultTimeout(ctx, startTimeout)
	defer cancel()
	program, err := b.prepare(ctx, target{host: spec.SSHHost, program: spec.Program, core: spec.Core})
	if err != nil {
		return debugger.State{}, err
	}
	spec.Program = program
	if err := b.start(ctx, spec.Program); err != nil {
		return debugger.State{}, err
	}
	b.mu.Lock()
	cmd, args, err := b.fl.core(spec)
	b.core = true
	b.mu.Unlock()
	if err != nil {
		return debugger.State{}, err
	}
	if err := b.configure(ctx, cmd, args, nil); err != nil {
		return b.State(), fmt.Errorf("opening core %s: %w", spec.Core, err)
	}
	if b.fl.kind == KindLLDB {
		// lldb-dap reports the core's stop (its signal) after the
		// configurationDone response, a round trip later on a remote
		// host; without it, the crash would read as a plain stop.
		_, _ = b.waitUntil(ctx, coreStopWait, func() bool { return b.state.LastStop != nil })
		b.crashedThread(ctx)
	}
	b.mu.Lock()
	// A core is stopped for good; keep the adapter's reason if it gave one.
	b.state.Status = debugger.StatusStopped
	if b.state.LastStop == nil {
		b.state.LastStop = &debugger.Stop{Reason: debugger.StopCore, At: time.Now()}
	}
	if stop := b.state.LastStop; stop.Signal != "" && stop.Reason != debugger.StopSignal && stop.Reason != debugger.StopException {
		// lldb-dap 22 reports a core's signal under another reason than
		// lldb-vscode 16's "signal": the signal a core holds is its crash.
		stop.Reason = debugger.StopCore
	}
	b.mu.Unlock()
	return b.State(), nil
}

// configure runs the DAP start-up sequence. The initialized event may come
// before or after the launch/attach response (lldb and dlv differ), so the
// request runs in the background while we wait for either.
func (b *Backend) configure(ctx context.Context, command string, args map[string]any, bps []debugger.BreakpointSpec) error {
	resp := b.goCall(ctx, command, args, nil)
	var respErr error
	gotResp := false
	select {
	case <-b.initialized:
	case respErr = <-resp:
		gotResp = true
		if respErr != nil {
			return respErr
		}
		select {
		case <-b.initialized:
		case <-ctx.Done():
			return fmt.Errorf("waiting for the initialized event: %w", ctx.Err())
		}
	case <-ctx.Done():
		return fmt.Errorf("waiting for the adapter: %w", ctx.Err())
	}
	for _, spec := range bps {
		if _, err := b.addBreakpoint(ctx, spec); err != nil {
			return err
		}
	}
	if b.Capabilities().SupportsConfigurationDoneRequest {
		if err := b.call(ctx, "configurationDone", nil, nil); err != nil {
			return startFailure(ctx, resp, gotResp, err)
		}
	}
	if !gotResp {
		select {
		case respErr = <-resp:
		case <-ctx.Done():
			return fmt.Errorf("waiting for the %s response: %w", command, ctx.Err())
		}
	}
	return respErr
}

// startFailure is the error of a start whose configurationDone failed:
// the launch or attach response's own where it failed too. lldb-dap 22
// answers an attach only after configurationDone, and a failed attach
// fails configurationDone first with its consequence ("Trying to resume
// but the async thread is dead"), the attach's response then with its
// cause ("Operation not permitted").
func startFailure(ctx context.Context, resp <-chan error, gotResp bool, doneErr error) error {
	if gotResp {
		return doneErr
	}
	wait, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	select {
	case respErr := <-resp:
		if respErr != nil {
			return respErr
		}
	case <-wait.Done():
	}
	return doneErr
}

// afterStart marks a started target running unless it already stopped.
func (b *Backend) afterStart() debugger.State {
	b.mu.Lock()
	if b.state.Status == debugger.StatusNotStarted {
		b.state.Status = debugger.StatusRunning
	}
	b.mu.Unlock()
	return b.State()
}

// Detach implements debugger.Backend: disconnect, killing a launched target
// and ending a core.
func (b *Backend) Detach(ctx context.Context) error {
	b.mu.Lock()
	launched, core, dead := b.launched, b.core, b.state.Status == debugger.StatusDead
	b.mu.Unlock()
	if dead {
		return fmt.Errorf("detaching: %w", debugger.ErrSessionDead)
	}
	ctx, cancel := withDefaultTimeout(ctx, detachTimeout)
	defer cancel()
	// A core is ended, not detached from: lldb-dap 22 refuses to detach
	// ("elf-core does not support detaching from processes").
	return b.call(ctx, "disconnect", godap.DisconnectArguments{TerminateDebuggee: launched || core}, nil)
}

// usable reports why requests cannot go to the target now, if they cannot.
// needStopped adds "the target must be stopped".
func (b *Backend) usable(needStopped bool) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state.Status {
	case debugger.StatusDead:
		return fmt.Errorf("%w: %s", debugger.ErrSessionDead, b.state.Error)
	case debugger.StatusNotStarted:
		return debugger.ErrNotStarted
	case debugger.StatusExited:
		return fmt.Errorf("%w (%s)", debugger.ErrTargetExited, b.state.LastStop)
	case debugger.StatusRunning:
		if needStopped {
			return debugger.ErrRunning
		}
	}
	return nil
}

// Continue implements debugger.Backend.
func (b *Backend) Continue(ctx context.Context, opts debugger.ContinueOptions) (debugger.State, error) {
	if err := b.usable(false); err != nil {
		return b.State(), err
	}
	// First, as it may step the target: the state is read after it.
	if st, ok, err := b.continueFromWatch(ctx); ok {
		return st, err
	}
	b.mu.Lock()
	core, running, gen, thread := b.core, b.state.Status == debugger.StatusRunning, b.stopGen, b.thread
	if opts.Thread != 0 {
		thread = opts.Thread
	}
	b.mu.Unlock()
	if core {
		return b.State(), fmt.Errorf("continuing a core file: %w", debugger.ErrUnsupported)
	}
	if !running && b.hasSoftWatch() {
		return b.continueSoft(ctx, opts.Wait)
	}
	if !running {
		if err := b.call(ctx, "continue", godap.ContinueArguments{ThreadId: thread}, nil); err != nil {
			return b.State(), err
		}
		b.markRunning(gen)
	}
	return b.WaitStop(ctx, opts.Wait)
}

// markRunning sets running after a resume request, unless a stop already
// arrived (a fast breakpoint can beat the response).
func (b *Backend) markRunning(gen int) {
	b.mu.Lock()
	b.watchStopped = false
	if b.stopGen == gen && b.state.Status == debugger.StatusStopped {
		b.state.Status = debugger.StatusRunning
	}
	b.mu.Unlock()
}

// WaitStop implements debugger.Backend: it waits on the adapter's
// stopped, exited and terminated events (and its death).
func (b *Backend) WaitStop(ctx context.Context, d time.Duration) (debugger.State, error) {
	return b.waitUntil(ctx, d, func() bool { return b.state.Status != debugger.StatusRunning })
}

// waitStop waits for a stop, exit or death after generation gen.
func (b *Backend) waitStop(ctx context.Context, gen int, wait time.Duration) (debugger.State, error) {
	return b.waitUntil(ctx, wait, func() bool { return b.stopGen > gen })
}

// waitUntil waits up to wait for done (called with mu held) to hold,
// woken by every state change. A dead session is an error.
func (b *Backend) waitUntil(ctx context.Context, wait time.Duration, done func() bool) (debugger.State, error) {
	timer := time.NewTimer(max(wait, 0))
	defer timer.Stop()
	for {
		b.mu.Lock()
		ok, ch := done(), b.changed
		b.mu.Unlock()
		if ok {
			st := b.State()
			if st.Status == debugger.StatusDead {
				return st, fmt.Errorf("%w: %s", debugger.ErrSessionDead, st.Error)
			}
			return b.settleWatch(ctx, st), nil
		}
		if wait <= 0 {
			return b.State(), nil
		}
		select {
		case <-ch:
		case <-timer.C:
			return b.State(), fmt.Errorf("%w after %s", debugger.ErrTimeout, wait)
		case <-ctx.Done():
			return b.State(), ctx.Err()
		}
	}
}

// Step implements debugger.Backend.
func (b *Backend) Step(ctx context.Context, kind debugger.StepKind, thread int, wait time.Duration) (debugger.State, error) {
	command := map[debugger.StepKind]string{debugger.StepOver: "next", debugger.StepIn: "stepIn", debugger.StepOut: "stepOut"}[kind]
	if command == "" {
		return b.State(), fmt.Errorf("step: unknown kind %q (want over, in or out)", kind)
	}
	if err := b.usable(true); err != nil {
		return b.State(), err
	}
	b.mu.Lock()
	core, gen := b.core, b.stopGen
	if thread == 0 {
		thread = b.thread
	}
	b.mu.Unlock()
	if core {
		return b.State(), fmt.Errorf("stepping a core file: %w", debugger.ErrUnsupported)
	}
	if err := b.call(ctx, command, godap.NextArguments{ThreadId: thread}, nil); err != nil {
		return b.State(), err
	}
	b.markRunning(gen)
	return b.WaitStop(ctx, wait)
}

// Pause implements debugger.Backend.
func (b *Backend) Pause(ctx context.Context) (debugger.State, error) {
	if err := b.usable(false); err != nil {
		return b.State(), err
	}
	b.mu.Lock()
	stopped, gen, thread := b.state.Status == debugger.StatusStopped, b.stopGen, b.thread
	if !stopped {
		b.pausing = true
	}
	b.mu.Unlock()
	if stopped {
		return b.State(), nil
	}
	if thread == 0 {
		thread = b.anyThread(ctx)
	}
	if b.hasLogpoint() {
		if st, ok := b.pauseBySignal(ctx, gen); ok {
			return st, nil
		}
	}
	return b.pauseRequest(ctx, gen, thread)
}

// pauseRequest sends the adapter's pause, again while it brings no stop,
// until the stop comes or pauseWait passes.
func (b *Backend) pauseRequest(ctx context.Context, gen, thread int) (debugger.State, error) {
	deadline := time.Now().Add(pauseWait)
	var refusedSince time.Time
	for {
		wait := pauseResend
		if err := b.call(ctx, "pause", godap.PauseArguments{ThreadId: thread}, nil); err != nil {
			if !notRunning(err) {
				return b.State(), err
			}
			// lldb refuses a pause while its public state still says
			// stopped: an attach's stop, whose continue (after
			// configurationDone) it has begun but not yet reported. Ask
			// again shortly; only a refusal that lasts means the target is
			// stopped for good.
			if refusedSince.IsZero() {
				refusedSince = time.Now()
			}
			if time.Since(refusedSince) >= pauseRefusedFor && b.readableStack(ctx, thread) {
				return b.foundStopped(thread), nil
			}
			wait = pauseRefusedRetry
		} else {
			refusedSince = time.Time{}
		}
		st, err := b.waitStop(ctx, gen, max(min(wait, time.Until(deadline)), time.Millisecond))
		if !errors.Is(err, debugger.ErrTimeout) {
			return st, err
		}
		if wait == pauseResend && b.readableStack(ctx, thread) {
			// No stopped event, yet the thread's stack can be read: the
			// target was stopped already (an attach can stop it without an
			// event), so the pause found it stopped.
			return b.foundStopped(thread), nil
		}
		if time.Until(deadline) <= 0 {
			return st, fmt.Errorf("%w after %s", debugger.ErrTimeout, pauseWait)
		}
		// Still running and no event: a pause that reaches the adapter while
		// it is still resuming the target (just after an attach's
		// configurationDone) can be dropped. Ask again.
	}
}

// foundStopped records that a pause found the target already stopped.
func (b *Backend) foundStopped(thread int) debugger.State {
	b.mu.Lock()
	b.pausing = false
	b.state.Status = debugger.StatusStopped
	b.state.LastStop = &debugger.Stop{Reason: debugger.StopPause, ThreadID: thread, At: time.Now()}
	b.bump()
	b.mu.Unlock()
	return b.State()
}

// notRunning reports whether the adapter refused a pause because it holds
// the target stopped ("Process is not running.").
func notRunning(err error) bool {
	var re *ResponseError
	return errors.As(err, &re) && strings.Contains(strings.ToLower(re.Error()), "not running")
}

// readableStack reports whether the adapter can give thread's top frame,
// which it can only for a stopped target.
func (b *Backend) readableStack(ctx context.Context, thread int) bool {
	var body godap.StackTraceResponseBody
	err := b.call(ctx, "stackTrace", godap.StackTraceArguments{ThreadId: thread, Levels: 1}, &body)
	return err == nil && len(body.StackFrames) > 0
}

// anyThread returns the first thread's id, or 1.
func (b *Backend) anyThread(ctx context.Context) int {
	var body godap.ThreadsResponseBody
	if err := b.call(ctx, "threads", nil, &body); err == nil && len(body.Threads) > 0 {
		return body.Threads[0].Id
	}
	return 1
}

// sourceDirs are where a relative breakpoint file is looked for: the
// program's working directory, then the program's own directory.
func sourceDirs(cwd, program string) []string {
	dirs := []string{cwd}
	if program != "" {
		dirs = append(dirs, filepath.Dir(program))
	}
	return dirs
}

func withDefaultTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
