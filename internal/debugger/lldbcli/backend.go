// Package lldbcli is the LLDB command-line backend of internal/debugger: one
// long-lived `lldb --no-lldbinit` per session, driven through internal/repl.
//
// Quirks of lldb on a pipe that this package relies on or works around:
//   - lldb runs the target asynchronously: `process launch`, `process
//     continue` and `thread step-*` return before the target stops, and the
//     stop report ("Process 42 stopped" + "* thread #1 ... stop reason = ...")
//     is printed later, by itself. Those commands (and WaitStop's `process
//     status`) go through repl.RunWatch, which watches for the report up to
//     the wait and then sends the sentinel without interrupting lldb, so a
//     wait that runs out leaves the target running. The last report in the
//     output wins: a stop report before "resuming" is the previous stop's.
//   - A stop on entry (`process launch -s`) reads "signal SIGSTOP"; it is
//     reported as an entry stop.
//   - While the target runs, lldb forwards its own stdin to the target, which
//     would swallow our commands; target.disable-stdio keeps it from doing so
//     (the target's output is then not captured).
//   - `p` fails while the process state is changing; the sentinel is an
//     embedded-Python print instead.
//
// Frame IDs are frame indexes plus one, so 0 means "the top frame".
package lldbcli

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/repl"
	"github.com/triage-dev/triage/internal/toolpath"
)

// ErrLLDBNotFound: no lldb or lldb-N in PATH.
var ErrLLDBNotFound = errors.New("lldb not found in PATH (install lldb, e.g. Debian lldb-16)")

// FindLLDB returns the path of lldb, or of the newest lldb-N.
func FindLLDB() (string, error) {
	if p, err := toolpath.LLDB.Find(); err == nil {
		return p, nil
	}
	return "", ErrLLDBNotFound
}

const (
	prompt       = "(triage-lldb) "
	startTimeout = 30 * time.Second
	defaultWait  = 20 * time.Second
	commandWait  = 60 * time.Second
	rawOutputMax = 256 << 10
)

// stopReport matches the end of an attach or an interrupt: a stop, an exit,
// or an error saying nothing will run.
var stopReport = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Process \d+ (?:stopped|exited)|(?m)^error: `) })

// Backend is a debugger.Backend over the lldb command line.
//
// op serializes whole operations (several lldb commands, such as selecting a
// frame and then reading it); the repl session serializes single commands.
// mu guards the cached state and breakpoint registry and is never held
// while lldb works.
type Backend struct {
	cfg debugger.Config
	lim debugger.Limits

	// cmdWait bounds one lldb command past a watch's wait (commandWait;
	// tests shorten it).
	cmdWait time.Duration

	op   sync.Mutex
	lldb string // lldb's path from AttachSpec.Debugger (guarded by op); "" finds one
	// pool holds the ssh connections a remote session's lldb runs
	// through (nil: local sessions only).
	pool *remote.Pool

	mu sync.Mutex
	// host and ssh: a remote session's host and the connection its lldb
	// runs through (remote.go); "" and nil here.
	host     string
	ssh      *remote.Conn
	sess     *repl.Session
	state    debugger.State
	launched bool
	// atEntry: launched to stop on entry, and not seen running since.
	atEntry bool
	// moved: a command that runs the target was sent, so the next stop
	// reported is a new one (sameStop).
	moved bool
	// watchStopped: the last stop is a hardware watchpoint's, so the next
	// continue first looks for a breakpoint at its pc (continueFromWatch).
	watchStopped bool
	core         bool
	// coreSpec is the core a LoadCore opened: an lldb that had to be
	// killed (a command it would not let go of) is restarted on it.
	coreSpec *debugger.CoreSpec
	bps      map[int]debugger.Breakpoint // by our id
	// refs are what each of ours is to lldb (a breakpoint, a watchpoint,
	// a signal's handling), whose ids are counted apart; nextID is ours.
	refs     map[int]lldbRef
	nextID   int
	disposed bool
	// book is the logpoints' event log, made by the first logpoint.
	book *debugger.LogBook
	// pausing: a pause amid logpoints is under way, so a stop at a
	// logpoint is real (passingStop).
	pausing bool

	// notify is told of a stop or exit no call waited for (NotifyChanges);
	// idleCancel ends the watch for one (awaitStop), idle waits for it, and
	// idleAgain asks the watch under way for another once it ends.
	notify     func()
	idleCancel context.CancelFunc
	idleAgain  bool
	idle       sync.WaitGroup
}

// New returns an unstarted backend.
func New(cfg debugger.Config) *Backend {
	return &Backend{cfg: cfg, lim: cfg.Limits.WithDefaults(), cmdWait: commandWait,
		state: debugger.State{Status: debugger.StatusNotStarted},
		bps:   make(map[int]debugger.Breakpoint), refs: make(map[int]lldbRef)}
}

// Factory makes lldb CLI backends for the Manager, whose remote sessions
// run through pool's connections.
func Factory(pool *remote.Pool) debugger.Factory {
	return func(cfg debugger.Config) (debugger.Backend, error) {
		b := New(cfg)
		b.pool = pool
		return b, nil
	}
}

// Name implements debugger.Backend.
func (b *Backend) Name() string { return "lldb" }

// EnginePid is lldb's process id (0 when not running).
func (b *Backend) EnginePid() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sess == nil {
		return 0
	}
	return b.sess.Pid()
}

// start starts lldb: here, or on a remote session's host (where lldb is
// found on its PATH).
func (b *Backend) start(ctx context.Context) error {
	b.mu.Lock()
	lldb, local := b.lldb, b.host == ""
	b.mu.Unlock()
	if lldb == "" && local {
		var err error
		if lldb, err = FindLLDB(); err != nil {
			return err
		}
	}
	argv, err := b.remoteArgv(ctx, []string{lldb, "--no-lldbinit",
		"-O", "settings set prompt " + quote(prompt),
		"-O", "settings set use-color false",
		"-O", "settings set auto-confirm true",
		"-O", "settings set target.disable-stdio true",
		"-O", "settings set stop-line-count-before 0",
		"-O", "settings set stop-line-count-after 0"})
	if err != nil {
		return err
	}
	sess, err := repl.Start(ctx, repl.Config{
		Argv:           argv,
		Dir:            b.cfg.Dir,
		Prompt:         regexp.MustCompile(regexp.QuoteMeta(strings.TrimSpace(prompt)) + ` ?`),
		Sentinel:       repl.SumSentinel("script print(%d+%d)"),
		QuitCommand:    "quit",
		StartupTimeout: startTimeout,
		CommandTimeout: b.cmdWait,
	})
	if err != nil {
		return fmt.Errorf("starting lldb: %w", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.disposed {
		sess.Close()
		return errors.New("starting lldb: backend disposed")
	}
	b.sess = sess
	return nil
}

// run sends one command; engine death becomes ErrSessionDead.
func (b *Backend) run(ctx context.Context, cmd string, until *regexp.Regexp) (string, error) {
	sess := b.session()
	if sess == nil {
		return "", debugger.ErrNotStarted
	}
	out, err := sess.RunUntil(ctx, cmd, until)
	if errors.Is(err, repl.ErrDead) && b.restartable() {
		return out, b.restartCore(err, b.lostConnection())
	}
	return out, b.engineErr(err)
}

// restartable reports a core session whose lldb may be started again: a
// core holds no state lldb's death loses, but the breakpoints and frame
// selection of a live target it does.
func (b *Backend) restartable() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.coreSpec != nil && !b.disposed
}

// restartCore starts lldb again on the session's core after cause killed
// it (or lost, a remote session's dropped connection, ended it), and says
// so; the session goes on. If lldb cannot be started, the session is dead.
func (b *Backend) restartCore(cause, lost error) error {
	b.mu.Lock()
	spec := *b.coreSpec
	b.coreSpec = nil // no restart within the restart
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	err := b.start(ctx)
	if err == nil {
		_, err = b.runChecked(ctx, "target create --core "+quote(spec.Core)+" "+quote(spec.Program))
	}
	if err != nil {
		return b.engineErr(fmt.Errorf("%w (restarting it on the core failed: %v)", cause, err))
	}
	b.mu.Lock()
	b.coreSpec = &spec
	b.mu.Unlock()
	if lost != nil {
		return fmt.Errorf("%w: lldb was started again on the core through a new connection, and the session goes on (run the command again)", lost)
	}
	return fmt.Errorf("lldb did not let go of the command and was killed (%v); it was restarted on the core, and the session goes on", stripRestartAdvice(cause))
}

// stripRestartAdvice drops the engine error's advice to restart the
// session, which the restart has taken.
func stripRestartAdvice(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "; restart the session")
	return msg
}

func (b *Backend) session() *repl.Session {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sess
}

// engineErr marks the session dead when lldb is gone.
func (b *Backend) engineErr(err error) error {
	if !errors.Is(err, repl.ErrDead) {
		return err
	}
	if lost := b.lostConnection(); lost != nil {
		err = fmt.Errorf("%w: the debug session ended (lldb and its target there are gone)", lost)
	}
	b.mu.Lock()
	b.state.Status = debugger.StatusDead
	b.state.Error = err.Error()
	b.mu.Unlock()
	return fmt.Errorf("%w: %v", debugger.ErrSessionDead, err)
}

// watch runs cmd and waits up to wait for lldb's report that the target
// stopped or exited: lldb prints it by itself when it comes, after the
// command's own output. A wait that runs out leaves the target running
// (ErrTimeout); lldb is not interrupted.
func (b *Backend) watch(ctx context.Context, cmd string, wait time.Duration) (debugger.State, error) {
	sess := b.session()
	if sess == nil {
		return b.State(), debugger.ErrNotStarted
	}
	if cmd != "process status" {
		b.mu.Lock()
		b.moved = true // the next stop reported is a new one, whatever it says
		b.watchStopped = false
		b.mu.Unlock()
	}
	start := time.Now()
	shown := stopShown
	if cmd == "process status" {
		// Waiting on a running target: a logpoint's passing stop is not
		// the one awaited.
		shown = func(out string) bool { return stopShown(out) && !b.passingStop(out) && !b.loaderStop(out) }
	}
	out, seen, err := sess.RunWatch(ctx, cmd, shown, wait)
	first := "" // the stop report, with a watchpoint's old and new values
	if err == nil && seen && !settled(out) {
		first = out
		// lldb's event thread can print the stop before the command's own
		// "resuming" line, which then reads as running, as does an earlier
		// stop printed late: lldb's status says which.
		out, _, err = sess.RunWatch(ctx, "process status", func(out string) bool { return settled(out) && !b.loaderStop(out) }, max(wait-time.Since(start), 0))
	}
	st := b.observe(first + out)
	if err = b.engineErr(err); err != nil {
		return st, err
	}
	st = b.settleWatch(ctx, st)
	if e := lldbError(out); e != "" && st.Status != debugger.StatusExited && !noProcRE().MatchString(e) {
		return st, fmt.Errorf("%s: %s", cmd, e)
	}
	if st.Status == debugger.StatusRunning && wait > 0 {
		return st, fmt.Errorf("%w after %s", debugger.ErrTimeout, wait)
	}
	return st, nil
}

// settled reports output whose last process report is an exit or a whole
// stop report (its "stop reason" line ended: lldb prints the report in
// pieces), or an error that says nothing will run. A stop report before a
// later "resuming" is an earlier stop's.
func settled(out string) bool {
	if lldbError(out) != "" {
		return true
	}
	st, ok := latestState(out)
	switch {
	case !ok || st.Status == debugger.StatusRunning:
		return false
	case st.Status == debugger.StatusStopped:
		all := stoppedRE().FindAllStringIndex(out, -1)
		return stopReasonLineRE().MatchString(out[all[len(all)-1][0]:])
	}
	return true
}

// stopShown is settled, or a whole stop report followed by a "resuming"
// line: the stop may be the command's own, printed first.
func stopShown(out string) bool {
	if settled(out) {
		return true
	}
	all := stoppedRE().FindAllStringIndex(out, -1)
	return all != nil && stopReasonLineRE().MatchString(out[all[len(all)-1][0]:])
}

// runChecked is run plus: an lldb "error:" line becomes an error.
func (b *Backend) runChecked(ctx context.Context, cmd string) (string, error) {
	out, err := b.run(ctx, cmd, nil)
	if err != nil {
		return out, err
	}
	if runningErr().MatchString(out) {
		return out, debugger.ErrRunning
	}
	if e := lldbError(out); e != "" {
		return out, fmt.Errorf("%s: %s", cmd, e)
	}
	return out, nil
}

// observe updates the cached state from a command's output.
func (b *Backend) observe(out string) debugger.State {
	b.mu.Lock()
	defer b.mu.Unlock()
	if st, ok := latestState(out); ok && b.state.Status != debugger.StatusDead {
		if st.Status == debugger.StatusStopped && st.LastStop != nil && b.passingStopLocked(st.LastStop, out) {
			b.awaitStop() // a logpoint's passing stop: the target runs on
			return b.copyState()
		}
		wasStopped := b.state.Status == debugger.StatusStopped
		b.state.Status = st.Status
		if st.Pid != 0 {
			b.state.Pid = st.Pid
		}
		resumed := runningRE().MatchString(out)
		if resumed || st.Status == debugger.StatusExited {
			b.atEntry = false
		}
		if stop := st.LastStop; b.atEntry && stop != nil && stop.Reason == debugger.StopPause && strings.Contains(stop.Description, "SIGSTOP") {
			// `process launch -s` stops with SIGSTOP (read as a pause),
			// and every report of that stop until the target runs says so.
			stop.Reason = debugger.StopEntry
		}
		if st.LastStop != nil {
			b.ours(st.LastStop, out)
			b.state.LastStop = sameStop(b.state.LastStop, st.LastStop, resumed || !wasStopped || b.moved)
			b.moved = false
		}
	}
	if b.state.Status == debugger.StatusRunning {
		b.awaitStop()
	}
	return b.copyState()
}

// sameStop returns the stop to keep after a report of next: prev when next
// only reports it again (every `process status` does, each parsed anew), so
// that a stop's At names it. ran says the target ran since prev.
func sameStop(prev, next *debugger.Stop, ran bool) *debugger.Stop {
	if prev == nil || ran || prev.Reason != next.Reason || prev.ThreadID != next.ThreadID ||
		prev.Description != next.Description || prev.Signal != next.Signal || !slices.Equal(prev.BreakpointIDs, next.BreakpointIDs) {
		return next
	}
	return prev
}

func (b *Backend) copyState() debugger.State {
	st := b.state
	if st.LastStop != nil {
		stop := *st.LastStop
		st.LastStop = &stop
	}
	return st
}

// State implements debugger.Backend.
func (b *Backend) State() debugger.State {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.copyState()
}

// refresh asks lldb for the process state.
func (b *Backend) refresh(ctx context.Context) (debugger.State, error) {
	out, err := b.run(ctx, "process status", nil)
	if err != nil {
		return b.State(), err
	}
	return b.observe(out), nil
}

// usable refreshes the state and says why the target cannot be inspected.
func (b *Backend) usable(ctx context.Context, needStopped bool) error {
	st := b.State()
	switch st.Status {
	case debugger.StatusDead:
		return fmt.Errorf("%w: %s", debugger.ErrSessionDead, st.Error)
	case debugger.StatusNotStarted:
		return debugger.ErrNotStarted
	}
	if !b.isCore() {
		var err error
		if st, err = b.refresh(ctx); err != nil {
			return err
		}
	}
	switch st.Status {
	case debugger.StatusExited:
		return fmt.Errorf("%w (%s)", debugger.ErrTargetExited, st.LastStop)
	case debugger.StatusRunning:
		if needStopped {
			return debugger.ErrRunning
		}
	}
	return nil
}

func (b *Backend) isCore() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.core
}

// Dispose implements debugger.Backend.
func (b *Backend) Dispose() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("disposing lldb backend: %v", r)
		}
	}()
	b.mu.Lock()
	sess := b.sess
	already := b.disposed
	b.disposed = true
	if b.state.Status != debugger.StatusExited {
		b.state.Status, b.state.Error = debugger.StatusDead, "session disposed"
	}
	cancel := b.idleCancel
	b.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	b.idle.Wait()
	if already || sess == nil {
		return nil
	}
	return sess.Close()
}
