package lldbcli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/interactive"
)

func withDefaultTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

func checkFile(path, what string) error {
	if path == "" {
		return fmt.Errorf("no %s given", what)
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("%s %s: %v", what, path, err)
	}
	return nil
}

// Launch implements debugger.Backend. With breakpoints or StopOnEntry it
// waits for the first stop (or exit); otherwise it returns once the target
// runs.
func (b *Backend) Launch(ctx context.Context, spec debugger.LaunchSpec) (debugger.State, error) {
	ctx, cancel := withDefaultTimeout(ctx, startTimeout)
	defer cancel()
	program, err := b.prepare(ctx, spec.SSHHost, 0, spec.Program)
	if err != nil {
		return debugger.State{}, err
	}
	spec.Program = program
	b.op.Lock()
	defer b.op.Unlock()
	if err := b.start(ctx); err != nil {
		return debugger.State{}, err
	}
	if _, err := b.runChecked(ctx, "target create "+quote(spec.Program)); err != nil {
		return b.State(), err
	}
	b.mu.Lock()
	b.launched = true
	b.atEntry = spec.StopOnEntry
	b.state.Status = debugger.StatusStopped // not yet running: breakpoints may be set
	b.mu.Unlock()
	for _, bp := range spec.Breakpoints {
		if _, err := b.addBreakpoint(ctx, bp); err != nil {
			return b.State(), err
		}
	}
	cmd := "process launch"
	if spec.Dir != "" {
		cmd += " -w " + quote(spec.Dir)
	}
	for k, v := range spec.Env {
		cmd += " -E " + quote(k+"="+v)
	}
	if spec.StopOnEntry {
		cmd += " -s"
	}
	if len(spec.Args) > 0 {
		cmd += " --"
		for _, a := range spec.Args {
			cmd += " " + quote(a)
		}
	}
	wait := time.Duration(0)
	if spec.StopOnEntry || len(spec.Breakpoints) > 0 {
		wait = defaultWait // the caller's WaitStop waits longer if it must
	}
	st, err := b.watch(ctx, cmd, wait)
	switch {
	case errors.Is(err, debugger.ErrTimeout):
		return st, nil
	case err != nil:
		return st, fmt.Errorf("launching %s: %w", spec.Program, err)
	}
	return st, nil
}

// Attach implements debugger.Backend.
func (b *Backend) Attach(ctx context.Context, spec debugger.AttachSpec) (debugger.State, error) {
	if spec.Pid <= 0 {
		return debugger.State{}, fmt.Errorf("attaching: invalid pid %d", spec.Pid)
	}
	if err := syscall.Kill(spec.Pid, 0); err == syscall.ESRCH && spec.SSHHost == "" {
		return debugger.State{}, fmt.Errorf("attaching: no process with pid %d", spec.Pid)
	}
	ctx, cancel := withDefaultTimeout(ctx, startTimeout)
	defer cancel()
	if _, err := b.prepare(ctx, spec.SSHHost, spec.Pid); err != nil {
		return debugger.State{}, err
	}
	b.op.Lock()
	defer b.op.Unlock()
	b.lldb = spec.Debugger
	if err := b.start(ctx); err != nil {
		return debugger.State{}, err
	}
	if spec.Program != "" {
		if _, err := b.runChecked(ctx, "target create "+quote(spec.Program)); err != nil {
			return b.State(), err
		}
	}
	out, err := b.run(ctx, "process attach -p "+strconv.Itoa(spec.Pid), stopReport())
	if err != nil {
		return b.State(), err
	}
	if e := lldbError(out); e != "" {
		return b.State(), fmt.Errorf("attaching to pid %d: %s", spec.Pid, e)
	}
	return b.observe(out), nil
}

// LoadCore implements debugger.Backend.
func (b *Backend) LoadCore(ctx context.Context, spec debugger.CoreSpec) (debugger.State, error) {
	ctx, cancel := withDefaultTimeout(ctx, startTimeout)
	defer cancel()
	program, err := b.prepare(ctx, spec.SSHHost, 0, spec.Program, spec.Core)
	if err != nil {
		return debugger.State{}, err
	}
	spec.Program = program
	b.op.Lock()
	defer b.op.Unlock()
	if err := b.start(ctx); err != nil {
		return debugger.State{}, err
	}
	if _, err := b.runChecked(ctx, "target create --core "+quote(spec.Core)+" "+quote(spec.Program)); err != nil {
		return b.State(), err
	}
	out, err := b.run(ctx, "process status", nil)
	if err != nil {
		return b.State(), err
	}
	b.mu.Lock()
	b.core = true
	b.coreSpec = &spec
	b.mu.Unlock()
	b.observe(out)
	b.mu.Lock()
	b.state.Status = debugger.StatusStopped
	if b.state.LastStop == nil {
		b.state.LastStop = &debugger.Stop{Reason: debugger.StopCore, At: time.Now()}
	} else if b.state.LastStop.Signal != "" {
		b.state.LastStop.Reason = debugger.StopCore
	}
	st := b.copyState()
	b.mu.Unlock()
	return st, nil
}

// Detach implements debugger.Backend: kill a launched target, detach from
// an attached one.
func (b *Backend) Detach(ctx context.Context) error {
	b.mu.Lock()
	launched, core, dead := b.launched, b.core, b.state.Status == debugger.StatusDead
	b.mu.Unlock()
	if dead {
		return fmt.Errorf("detaching: %w", debugger.ErrSessionDead)
	}
	b.op.Lock()
	defer b.op.Unlock()
	cmd := "process detach"
	switch {
	case core:
		return nil
	case launched:
		cmd = "process kill"
	}
	out, err := b.run(ctx, cmd, nil)
	if err != nil {
		return err
	}
	if e := lldbError(out); e != "" && !strings.Contains(e, "no process") && !noProcRE().MatchString(e) {
		return fmt.Errorf("%s: %s", cmd, e)
	}
	return nil
}

// Continue implements debugger.Backend. Waiting holds the session (a Pause
// waits behind it); a wait that runs out leaves the target running.
func (b *Backend) Continue(ctx context.Context, opts debugger.ContinueOptions) (debugger.State, error) {
	b.op.Lock()
	defer b.op.Unlock()
	if err := b.usable(ctx, false); err != nil {
		return b.State(), err
	}
	if b.isCore() {
		return b.State(), fmt.Errorf("continuing a core file: %w", debugger.ErrUnsupported)
	}
	if st, ok := b.continueFromWatch(ctx); ok {
		return st, nil
	}
	if b.State().Status == debugger.StatusStopped && b.hasSoftWatch() {
		return b.continueSoft(ctx, opts.Wait)
	}
	cmd := "process continue"
	if b.State().Status == debugger.StatusRunning {
		cmd = "process status" // running already: only wait
	}
	return b.watch(ctx, cmd, opts.Wait)
}

// WaitStop implements debugger.Backend through lldb's own stop report.
func (b *Backend) WaitStop(ctx context.Context, d time.Duration) (debugger.State, error) {
	b.op.Lock()
	defer b.op.Unlock()
	switch st := b.State(); {
	case st.Status == debugger.StatusDead:
		return st, fmt.Errorf("%w: %s", debugger.ErrSessionDead, st.Error)
	case st.Status == debugger.StatusNotStarted:
		return st, debugger.ErrNotStarted
	case b.isCore() || st.Status == debugger.StatusExited:
		return st, nil
	}
	return b.watch(ctx, "process status", d)
}

// loaderStop reports output whose last report is a stop at the dynamic
// loader's breakpoint while the target is known to run: `process status`
// shows one when it lands as a library loads, and lldb resumes from it by
// itself (target.process.stop-on-sharedlibrary-events is off by default),
// so a wait that took it for the stop awaited ended early.
func (b *Backend) loaderStop(out string) bool {
	st, ok := latestState(out)
	if !ok || st.Status != debugger.StatusStopped || st.LastStop == nil || st.LastStop.Description != "shared-library-event" {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state.Status == debugger.StatusRunning
}

// Step implements debugger.Backend.
func (b *Backend) Step(ctx context.Context, kind debugger.StepKind, thread int, wait time.Duration) (debugger.State, error) {
	cmd := map[debugger.StepKind]string{debugger.StepOver: "thread step-over", debugger.StepIn: "thread step-in", debugger.StepOut: "thread step-out"}[kind]
	if cmd == "" {
		return b.State(), fmt.Errorf("step: unknown kind %q (want over, in or out)", kind)
	}
	b.op.Lock()
	defer b.op.Unlock()
	if err := b.usable(ctx, true); err != nil {
		return b.State(), err
	}
	if b.isCore() {
		return b.State(), fmt.Errorf("stepping a core file: %w", debugger.ErrUnsupported)
	}
	if thread != 0 {
		cmd += " -t " + strconv.Itoa(thread)
	}
	return b.watch(ctx, cmd, wait)
}

// Pause implements debugger.Backend. It waits behind a Continue that is
// waiting for a stop.
func (b *Backend) Pause(ctx context.Context) (debugger.State, error) {
	b.op.Lock()
	defer b.op.Unlock()
	running := b.State().Status == debugger.StatusRunning
	if err := b.usable(ctx, false); err != nil {
		return b.State(), err
	}
	if running && b.hasLogpoint() {
		// usable's status may have met a logpoint's passing stop.
		return b.pauseAmidLogpoints(ctx)
	}
	if b.State().Status == debugger.StatusStopped {
		return b.State(), nil
	}
	out, err := b.run(ctx, "process interrupt", stopReport())
	if err != nil {
		return b.State(), err
	}
	b.observe(out)
	b.mu.Lock()
	defer b.mu.Unlock()
	// The stop an interrupt causes reads as a trace or SIGSTOP stop; a
	// breakpoint or a real signal that won the race stays itself.
	if stop := b.state.LastStop; stop != nil && (stop.Reason == debugger.StopStep || stop.Reason == debugger.StopOther) {
		stop.Reason = debugger.StopPause
	}
	return b.copyState(), nil
}

// RawCommand implements debugger.Backend. A command that would make lldb
// read its own input (script or expression alone) is refused: that input
// carries the next commands.
func (b *Backend) RawCommand(ctx context.Context, command string) (string, error) {
	if err := interactive.Check(interactive.LLDB, command); err != nil {
		return "", err
	}
	if st := b.State(); st.Status == debugger.StatusDead || st.Status == debugger.StatusNotStarted {
		return "", b.usable(ctx, false)
	}
	b.op.Lock()
	defer b.op.Unlock()
	out, err := b.run(ctx, command, nil)
	if err != nil {
		return out, err
	}
	b.observe(out)
	capped, cut := debugger.Limits{MaxString: rawOutputMax}.CapValue(out)
	if cut != "" {
		capped += "\n[" + cut + "]"
	}
	return capped, nil
}
