package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// Errors callers branch on with errors.Is.
var (
	// ErrDead: the engine is gone (exited, killed after a timeout, or
	// closed). Restart brings up a new one.
	ErrDead = errors.New("engine session is dead")
	// ErrTimeout: a command (or start-up) did not finish in time.
	ErrTimeout = errors.New("engine command timed out")
	// ErrMultiline: Run was given several lines; each command is sent,
	// and answered, on its own.
	ErrMultiline = errors.New("an engine command is one line; this one has several")
)

// ExitError reports an engine that exited by itself. It wraps ErrDead.
type ExitError struct {
	Status string // "pid 42 exited with status 1", "pid 42 killed by SIGSEGV"
	Tail   string // last lines of output before it died
}

func (e *ExitError) Error() string {
	if e.Tail == "" {
		return "engine process ended: " + e.Status
	}
	return fmt.Sprintf("engine process ended: %s; last output:\n%s", e.Status, e.Tail)
}

func (e *ExitError) Unwrap() error { return ErrDead }

// Config describes one engine.
type Config struct {
	Argv []string
	Dir  string
	Env  map[string]string
	// Prompt matches the engine's prompt; every match at the start of an
	// output line is removed. Optional.
	Prompt *regexp.Regexp
	// Sentinel builds the end-of-output marker; default SumSentinel("p %d+%d").
	Sentinel SentinelFunc
	// InitCommands run once at start-up (after the banner); their output is
	// kept in Session.StartupOutput.
	InitCommands []string
	// QuitCommand is written on Close before the process group is stopped.
	QuitCommand string
	// StartupTimeout bounds start-up and init commands; default 30s.
	StartupTimeout time.Duration
	// CommandTimeout bounds one command when its ctx has no earlier
	// deadline; default 60s.
	CommandTimeout time.Duration
	// InterruptGrace is how long an interrupted engine has to print the
	// sentinel before it is killed; default 2s.
	InterruptGrace time.Duration
	// Interrupt is the signal sent to the engine on timeout; default SIGINT.
	Interrupt syscall.Signal
	// MaxOutput bounds the bytes kept per command (the oldest are dropped,
	// with a note); default 16 MiB.
	MaxOutput int
}

func (c *Config) setDefaults() {
	if c.Sentinel == nil {
		c.Sentinel = SumSentinel("p %d+%d")
	}
	if c.StartupTimeout <= 0 {
		c.StartupTimeout = 30 * time.Second
	}
	if c.CommandTimeout <= 0 {
		c.CommandTimeout = 60 * time.Second
	}
	if c.InterruptGrace <= 0 {
		c.InterruptGrace = 2 * time.Second
	}
	if c.Interrupt == 0 {
		c.Interrupt = syscall.SIGINT
	}
	if c.MaxOutput <= 0 {
		c.MaxOutput = 16 << 20
	}
}

// Session is one running engine.
//
// Ownership: sem (1-buffered) is the right to talk to the engine; Run, Restart
// and start-up hold it for a whole command. mu guards the fields below it and
// is never held while waiting. The engine's output is written by spawn's
// stream goroutines into out, which never blocks them.
type Session struct {
	cfg Config
	sem chan struct{} // 1-buffered; holds a token when nobody is talking to the engine

	mu      sync.Mutex
	eng     *engine
	dead    error // non-nil once the engine is unusable
	n       int64 // commands sent, for the sentinel
	startup string
}

// engine is one started process and its pipes.
type engine struct {
	p      *spawn.Process
	stdin  *io.PipeWriter
	out    *sink
	writes chan string // to writeLoop
}

// Start starts the engine, runs the init commands and waits for the first
// sentinel. ctx bounds only start-up: the engine outlives it.
func Start(ctx context.Context, cfg Config) (*Session, error) {
	if len(cfg.Argv) == 0 {
		return nil, errors.New("starting engine: empty argv")
	}
	if _, err := exec.LookPath(cfg.Argv[0]); err != nil {
		return nil, fmt.Errorf("starting engine: %w", err)
	}
	cfg.setDefaults()
	s := &Session{cfg: cfg, sem: make(chan struct{}, 1)}
	// sem starts empty: we hold the engine until start-up is done.
	if err := s.start(ctx); err != nil {
		return nil, err
	}
	s.sem <- struct{}{}
	return s, nil
}

func (s *Session) start(ctx context.Context) error {
	out := newSink(s.cfg.MaxOutput)
	stdinR, stdinW := io.Pipe()
	p, err := spawn.Start(context.WithoutCancel(ctx), spawn.Spec{
		Argv:  s.cfg.Argv,
		Dir:   s.cfg.Dir,
		Env:   s.cfg.Env,
		Stdin: stdinR,
		// One pipe for stdout and stderr: with two, an error message written
		// before the sentinel's result could be read after it and leak into
		// the next command's output.
		MergeStderr: true,
		Stdout:      out,
	})
	if err != nil {
		return fmt.Errorf("starting %s: %w", s.cfg.Argv[0], err)
	}
	eng := &engine{p: p, stdin: stdinW, out: out, writes: make(chan string, 16)}
	go eng.writeLoop()
	s.mu.Lock()
	s.eng, s.dead = eng, nil
	s.mu.Unlock()

	ctx, cancel := context.WithTimeout(ctx, s.cfg.StartupTimeout)
	defer cancel()
	text, err := s.exchange(ctx, eng, strings.Join(s.cfg.InitCommands, "\n"), nil)
	if err != nil {
		s.kill(eng, err)
		return fmt.Errorf("starting %s: %w", s.cfg.Argv[0], err)
	}
	s.mu.Lock()
	s.startup = text
	s.mu.Unlock()
	return nil
}

// StartupOutput is what the init commands printed.
func (s *Session) StartupOutput() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.startup
}

// Pid is the engine's process id (0 when dead).
func (s *Session) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead != nil || s.eng == nil {
		return 0
	}
	return s.eng.p.Pid()
}

// Err is nil while the session is usable, else why it is not.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dead
}

func (s *Session) markDead(eng *engine, err error) {
	s.mu.Lock()
	if s.eng == eng && s.dead == nil {
		s.dead = err
	}
	s.mu.Unlock()
}

// kill marks the session dead with err and kills the engine's process group.
func (s *Session) kill(eng *engine, err error) {
	s.markDead(eng, err)
	_ = eng.stdin.Close()
	_, _ = eng.p.Stop(200 * time.Millisecond)
}

// Restart kills the current engine, if any, and starts a new one.
func (s *Session) Restart(ctx context.Context) error {
	select {
	case <-s.sem:
	case <-ctx.Done():
		return fmt.Errorf("waiting for the engine: %w", ctx.Err())
	}
	defer func() { s.sem <- struct{}{} }()
	s.mu.Lock()
	eng := s.eng
	s.mu.Unlock()
	if eng != nil {
		s.kill(eng, ErrDead)
	}
	return s.start(ctx)
}

// ErrClosed is the session error after Close.
var ErrClosed = fmt.Errorf("%w: session closed", ErrDead)

// Close asks the engine to quit, then stops its process group. It does not
// wait for a running command, which fails with an error wrapping ErrDead;
// later calls fail with ErrClosed. Safe to call more than once.
func (s *Session) Close() error {
	s.mu.Lock()
	eng := s.eng
	alreadyDead := s.dead != nil
	if !alreadyDead {
		s.dead = ErrClosed
	}
	s.mu.Unlock()
	if eng == nil {
		return nil
	}
	if !alreadyDead && s.cfg.QuitCommand != "" {
		select { // never block Close on a stuck engine
		case eng.writes <- s.cfg.QuitCommand + "\n":
		default:
		}
		select {
		case <-eng.p.Done():
		case <-time.After(time.Second):
		}
	}
	_ = eng.stdin.Close()
	_, _ = eng.p.Stop(500 * time.Millisecond)
	return nil
}
