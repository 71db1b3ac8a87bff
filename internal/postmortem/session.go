package postmortem

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/repl"
	"github.com/triage-dev/triage/internal/scratch"
)

// ErrSessionClosed: the dump session was closed (its last reference released).
var ErrSessionClosed = errors.New("dump session closed")

// Session is one opened dump: its identity, its work directory, and one
// lazily started engine per engine kind. Engines are independent: one that
// fails to start records its error and leaves the others usable.
type Session struct {
	ID     string
	Hash   string // ContentHash of the dump (of host+path for remote dumps)
	Target Target
	Dump   *DumpInfo // nil for remote dumps
	Router Router
	Opened time.Time
	// WorkDir is the engines' working directory, removed on close.
	WorkDir string
	work    *scratch.Owned // WorkDir's owner lock; nil in tests that build a Session by hand
	owner   string         // the identity that opened it (internal/identity)

	startupTimeout time.Duration
	commandTimeout time.Duration
	remote         *remote.Pool // the connection of a remote session's host

	mu       sync.Mutex
	refs     int
	closed   bool
	engines  map[Engine]*engineState
	history  []Command // the newest HistoryMax commands run (Record)
	onChange func()    // the Manager's Options.OnChange
}

// engineState is one engine of a session. run serializes starting the
// engine and running commands on it, so a context update is never lost
// between two commands; mu guards the fields, briefly, so that listing and
// closing never wait for a running command.
type engineState struct {
	run sync.Mutex

	mu       sync.Mutex
	repl     *repl.Session
	startErr error        // why the last start failed; retried on force
	ctx      Context      // the engine's current context
	conn     *remote.Conn // the connection a remote engine runs through
}

// connLost reports that the engine ran through a connection that has
// since dropped: it is gone even if its end has not been seen yet.
func (es *engineState) connLost() bool {
	es.mu.Lock()
	conn := es.conn
	es.mu.Unlock()
	return conn != nil && !conn.Alive()
}

func (es *engineState) get() (r *repl.Session, ctx Context, startErr error) {
	es.mu.Lock()
	defer es.mu.Unlock()
	return es.repl, es.ctx, es.startErr
}

func (es *engineState) set(r *repl.Session, startErr error, ctx Context) {
	es.mu.Lock()
	es.repl, es.startErr, es.ctx = r, startErr, ctx
	es.mu.Unlock()
}

func (es *engineState) setContext(ctx Context) {
	es.mu.Lock()
	es.ctx = ctx
	es.mu.Unlock()
}

// EngineInfo describes one engine of a session.
type EngineInfo struct {
	Engine  Engine  `json:"engine"`
	State   string  `json:"state"` // "not started", "running", "failed", "dead"
	Pid     int     `json:"pid,omitempty"`
	Error   string  `json:"error,omitempty"`
	Context Context `json:"context"`
}

// Engines lists the engines that can analyse this session's dump.
func (s *Session) Engines() []Engine {
	if s.Target.Kernel {
		return []Engine{EngineCrash, EngineDrgn}
	}
	return []Engine{EngineGDB, EngineLLDB, EngineDrgn}
}

// EngineInfos reports the state of every engine of the session.
func (s *Session) EngineInfos() []EngineInfo {
	var out []EngineInfo
	for _, e := range s.Engines() {
		es := s.engine(e)
		info := EngineInfo{Engine: e, State: "not started"}
		if es == nil {
			out = append(out, info)
			continue
		}
		r, ctx, startErr := es.get()
		info.Context = ctx
		switch {
		case r != nil && r.Err() == nil:
			info.State, info.Pid = "running", r.Pid()
		case r != nil:
			info.State, info.Error = "dead", r.Err().Error()
		case startErr != nil:
			info.State, info.Error = "failed", startErr.Error()
		}
		out = append(out, info)
	}
	return out
}

// Context is engine e's current context.
func (s *Session) Context(e Engine) Context {
	es := s.engine(e)
	if es == nil {
		return Context{}
	}
	_, ctx, _ := es.get()
	return ctx
}

func (s *Session) engine(e Engine) *engineState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.engines[e]
}

// Refs is the number of opens not yet matched by a close.
func (s *Session) Refs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refs
}

// ExecResult is one command's outcome.
type ExecResult struct {
	Engine  Engine
	Command string
	Output  string
	Before  Context // the context the command ran under
	After   Context // the context it left
	// Notes say what happened to the engine around the command: a restart
	// after its death, the reset of its context.
	Notes []string
}

// CommandError is a command that did not complete: it timed out, the
// engine ended, or the engine refused it while staying up. Output is what it
// printed before that. Its text says only what happened: an engine that is
// still up is never said to have ended.
type CommandError struct {
	Engine  Engine
	Command string
	Output  string
	// Timeout is set when the time limit fired.
	Timeout time.Duration
	// Limit, when set, names that limit and how to raise it (the caller's
	// words: capture.Limit), said after the time.
	Limit string
	// Usable is true when the engine answered the interrupt and kept its
	// state; otherwise it was killed (Restarted says whether a fresh one is
	// up, with the initial context).
	Usable     bool
	Restarted  bool
	RestartErr error
	Err        error
}

func (e *CommandError) Error() string {
	var what string
	after := e.Timeout.String()
	if e.Limit != "" {
		after += " (" + e.Limit + ")"
	}
	switch {
	case e.Timeout > 0 && e.Usable:
		what = fmt.Sprintf("%s: %q timed out after %s and was interrupted; the engine is still usable", e.Engine, e.Command, after)
	case e.Timeout > 0:
		what = fmt.Sprintf("%s: %q timed out after %s; the engine did not answer an interrupt and was killed", e.Engine, e.Command, after)
	case e.Usable:
		// The engine is up: the command alone failed.
		return fmt.Sprintf("%s: %q: %v", e.Engine, e.Command, e.Err)
	default:
		what = fmt.Sprintf("%s ended while running %q: %v", e.Engine, e.Command, e.Err)
	}
	switch {
	case e.Usable:
	case e.Restarted:
		what += "; restarted it (context back to the initial one)"
	case e.RestartErr != nil:
		what += fmt.Sprintf("; restarting failed: %v", e.RestartErr)
	default:
		what += "; the next command restarts it"
	}
	return what
}

func (e *CommandError) Unwrap() error { return e.Err }

// Exec runs command on engine e, starting the engine first if needed.
// timeout bounds the command (0: the configured default). retryStart makes
// an engine whose start failed try again. On a timeout the engine is
// interrupted; if it does not answer it is killed and restarted at once so
// the session stays usable. An engine that died is restarted by the next
// Exec. Both come back with a *CommandError.
func (s *Session) Exec(ctx context.Context, e Engine, command string, timeout time.Duration, retryStart bool) (ExecResult, error) {
	if err := CheckCommand(e, command); err != nil {
		return ExecResult{}, err
	}
	es, err := s.engineFor(e)
	if err != nil {
		return ExecResult{}, err
	}
	es.run.Lock()
	defer es.run.Unlock()
	res := ExecResult{Engine: e, Command: command}
	r, err := s.ready(ctx, e, es, retryStart, &res)
	if err != nil {
		return res, err
	}
	if timeout <= 0 {
		timeout = s.commandTimeout
	}
	_, res.Before, _ = es.get()
	line := command
	if e == EngineDrgn {
		line = drgnLine(command)
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, err := r.Run(rctx, line)
	res.Output = out
	if err != nil {
		return res, s.failed(ctx, es, r, res, timeout, err)
	}
	res.After = res.Before.Update(e, command, out)
	es.setContext(res.After)
	return res, nil
}

// ready returns e's running engine, starting it when it has not started or
// has ended (noting the restart in res); es.run is held.
func (s *Session) ready(ctx context.Context, e Engine, es *engineState, retryStart bool, res *ExecResult) (*repl.Session, error) {
	r, _, startErr := es.get()
	lost := r != nil && es.connLost()
	if r != nil && r.Err() == nil && !lost {
		return r, nil
	}
	if startErr != nil && !retryStart {
		return nil, fmt.Errorf("%s did not start (pass force: true to retry): %w", e, startErr)
	}
	switch {
	case lost:
		res.Notes = append(res.Notes, fmt.Sprintf("the ssh connection to %s had dropped; reconnected and restarted %s, context back to the initial one", s.Target.SSHHost, e))
	case r != nil:
		res.Notes = append(res.Notes, fmt.Sprintf("%s had ended (%v); restarted it, context back to the initial one", e, r.Err()))
	}
	return s.start(ctx, e, es)
}

// failed is the error of res's command, which r.Run ended with err: the
// caller's cancellation, or a *CommandError after which the engine is still
// usable, was restarted (after a timeout) or restarts on the next command.
func (s *Session) failed(ctx context.Context, es *engineState, r *repl.Session, res ExecResult, timeout time.Duration, err error) error {
	e, command := res.Engine, res.Command
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %q: %w", e, command, ctx.Err()) // the caller gave up
	}
	ce := &CommandError{Engine: e, Command: command, Output: res.Output, Err: err}
	if errors.Is(err, repl.ErrTimeout) {
		ce.Timeout = timeout
	}
	if r.Err() == nil {
		ce.Usable = true
		return ce
	}
	ce.Err = s.lostConnection(es, err)
	es.setContext(Context{})
	if ce.Timeout > 0 {
		// A corrupt dump can make crash spin: bring a fresh engine up now.
		if _, rerr := s.start(context.WithoutCancel(ctx), e, es); rerr != nil {
			ce.RestartErr = rerr
		} else {
			ce.Restarted = true
		}
	}
	return ce
}

// engineFor returns e's state, creating it; it refuses engines that cannot
// read this dump.
func (s *Session) engineFor(e Engine) (*engineState, error) {
	if err := s.Router.check(e); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("%w: %s", ErrSessionClosed, s.ID)
	}
	es := s.engines[e]
	if es == nil {
		es = &engineState{}
		s.engines[e] = es
	}
	return es, nil
}

// start starts (or restarts) engine e; es.run is held.
func (s *Session) start(ctx context.Context, e Engine, es *engineState) (*repl.Session, error) {
	if old, _, _ := es.get(); old != nil {
		old.Close()
	}
	fail := func(err error) (*repl.Session, error) {
		es.set(nil, err, Context{})
		return nil, err
	}
	if err := s.canStart(e); err != nil {
		return fail(err)
	}
	cfg, err := engineConfig(e, s.Target)
	if err != nil {
		return fail(err)
	}
	var conn *remote.Conn
	if s.Target.SSHHost != "" {
		// Not a start failure to remember: the next call connects again.
		if conn, err = s.remote.Conn(ctx, s.Target.SSHHost); err != nil {
			es.set(nil, nil, Context{})
			return nil, err
		}
		cfg.Argv = conn.Argv(cfg.Argv)
	}
	cfg.Dir = s.WorkDir
	cfg.StartupTimeout = s.startupTimeout
	cfg.CommandTimeout = s.commandTimeout
	r, err := repl.Start(ctx, cfg)
	if err != nil {
		return fail(s.explainStart(e, err))
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		r.Close()
		return nil, fmt.Errorf("%w: %s", ErrSessionClosed, s.ID)
	}
	es.set(r, nil, Context{})
	es.mu.Lock()
	es.conn = conn
	es.mu.Unlock()
	return r, nil
}

// canStart refuses, before spending a start-up, the dumps an engine is known
// not to read.
func (s *Session) canStart(e Engine) error {
	d := s.Dump
	if e != EngineDrgn || d == nil || !d.Kernel {
		return nil
	}
	switch {
	case d.Kind == coredump.KindKdumpFlat:
		return fmt.Errorf("drgn cannot read makedumpfile's flattened format; use crash, or convert it: makedumpfile -R out.kdump < %s", d.Path)
	case !d.VMCOREINFO:
		return fmt.Errorf("drgn needs VMCOREINFO, which this %s dump lacks (a QEMU dump carries it only when the guest loaded qemu_fw_cfg and QEMU ran with -device vmcoreinfo); use crash", d.Producer)
	}
	return nil
}

// explainStart adds what we know to an engine's start failure.
func (s *Session) explainStart(e Engine, err error) error {
	if e == EngineDrgn && s.Dump != nil && s.Dump.Kind == coredump.KindKdumpCompact {
		return fmt.Errorf("drgn could not open this kdump-compressed dump (drgn 0.0.22 fails on those written by QEMU 7.2's dump-guest-memory -z; use crash, or an ELF dump): %w", err)
	}
	return err
}

// shutdown kills every engine's process group and removes the work directory.
func (s *Session) shutdown() error {
	s.mu.Lock()
	s.closed = true
	engines := s.engines
	s.engines = map[Engine]*engineState{}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, es := range engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Close does not wait for a running command, which then fails.
			if r, _, _ := es.get(); r != nil {
				r.Close()
			}
		}()
	}
	wg.Wait()
	if s.work != nil {
		return s.work.Remove()
	}
	if s.WorkDir != "" {
		return os.RemoveAll(s.WorkDir)
	}
	return nil
}
