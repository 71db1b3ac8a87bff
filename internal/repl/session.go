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

// Run sends one command and returns its output. See the package doc for the
// timeout and death rules. command must be a single line.
func (s *Session) Run(ctx context.Context, command string) (string, error) {
	return s.RunUntil(ctx, command, nil)
}

// RunUntil is Run for commands an engine completes asynchronously (lldb's
// `run` or `continue` return before the target stops): the sentinel is sent
// only once until matches the output, so it cannot be read by the engine
// while the command is still in flight. A nil until is Run.
func (s *Session) RunUntil(ctx context.Context, command string, until *regexp.Regexp) (string, error) {
	if strings.ContainsAny(command, "\r\n") {
		return "", ErrMultiline
	}
	select {
	case <-s.sem:
	case <-ctx.Done():
		return "", fmt.Errorf("waiting for the engine: %w", ctx.Err())
	}
	defer func() { s.sem <- struct{}{} }()
	s.mu.Lock()
	eng, dead := s.eng, s.dead
	s.mu.Unlock()
	if dead != nil {
		return "", dead
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.CommandTimeout)
		defer cancel()
	}
	return s.exchange(ctx, eng, command, until)
}

// RunWatch runs a command whose effect the engine reports later (lldb's
// stop report after `process continue`): the output is watched for up to
// watch for seen to hold, then the sentinel is sent either way. Unlike
// RunUntil, a watch that runs out is no timeout: the engine is not
// interrupted (so a debugged target runs on), and the output so far is
// returned with seenIt false. ctx (or CommandTimeout) still bounds the whole
// command, with RunUntil's interrupt and death rules.
func (s *Session) RunWatch(ctx context.Context, command string, seen func(output string) bool, watch time.Duration) (out string, seenIt bool, err error) {
	if strings.ContainsAny(command, "\r\n") {
		return "", false, ErrMultiline
	}
	select {
	case <-s.sem:
	case <-ctx.Done():
		return "", false, fmt.Errorf("waiting for the engine: %w", ctx.Err())
	}
	defer func() { s.sem <- struct{}{} }()
	s.mu.Lock()
	eng, dead := s.eng, s.dead
	sent := s.cfg.Sentinel(s.n)
	s.n++
	s.mu.Unlock()
	if dead != nil {
		return "", false, dead
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.CommandTimeout)
		defer cancel()
	}
	eng.out.reset()
	send(eng, command+"\n")
	wctx, cancel := context.WithTimeout(ctx, max(watch, 0))
	text, seenIt, err := s.await(wctx, eng, func(t string) int {
		if seen(t) {
			return len(t)
		}
		return -1
	})
	cancel()
	if err != nil {
		return s.clean(text, command, sent.Command), false, err
	}
	if ctx.Err() != nil {
		out, err := s.interrupt(ctx, eng, command, sent, false)
		return out, false, err
	}
	send(eng, sent.Command+"\n")
	text, ok, err := s.await(ctx, eng, sent.Done)
	switch {
	case ok:
		return s.clean(text, command, sent.Command), seenIt || seen(text), nil
	case err != nil:
		return s.clean(text, command, sent.Command), false, err
	}
	out, err = s.interrupt(ctx, eng, command, sent, true)
	return out, false, err
}

// exchange writes command (possibly several lines, possibly empty) and a
// sentinel, and waits for the sentinel. The caller holds sem.
func (s *Session) exchange(ctx context.Context, eng *engine, command string, until *regexp.Regexp) (string, error) {
	s.mu.Lock()
	sent := s.cfg.Sentinel(s.n)
	s.n++
	s.mu.Unlock()

	eng.out.reset()
	input := sent.Command + "\n"
	if command != "" {
		input = command + "\n" + input
	}
	var (
		text string
		ok   bool
		err  error
	)
	if until != nil {
		send(eng, command+"\n")
		input = sent.Command + "\n"
		text, ok, err = s.await(ctx, eng, func(t string) int {
			if until.MatchString(t) {
				return len(t)
			}
			return -1
		})
	}
	sentinelSent := false
	if until == nil || ok {
		send(eng, input)
		sentinelSent = true
		text, ok, err = s.await(ctx, eng, sent.Done)
	}
	if ok {
		return s.clean(text, command, sent.Command), nil
	}
	if err != nil {
		return s.clean(text, command, sent.Command), err
	}
	return s.interrupt(ctx, eng, command, sent, sentinelSent)
}

// interrupt follows a command that timed out or was cancelled: it
// interrupts the engine, then gives up on it when it does not come back.
func (s *Session) interrupt(ctx context.Context, eng *engine, command string, sent Sentinel, sentinelSent bool) (string, error) {
	var cause error = ErrTimeout
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		cause = ctx.Err()
	}
	_ = eng.p.Signal(s.cfg.Interrupt)
	if !sentinelSent {
		// RunUntil gave up before the command finished: the sentinel now
		// tells us whether the interrupted engine is back.
		send(eng, sent.Command+"\n")
	}
	graceCtx, cancel := context.WithTimeout(context.Background(), s.cfg.InterruptGrace)
	defer cancel()
	text, ok, err := s.await(graceCtx, eng, sent.Done)
	if ok {
		return s.clean(text, command, sent.Command),
			fmt.Errorf("command interrupted (session still usable): %w", cause)
	}
	if err != nil {
		// It died of the interrupt (or just then): the timeout or
		// cancellation is still why.
		return s.clean(text, command, sent.Command), fmt.Errorf("%w, after %s was sent because %w", err, s.cfg.Interrupt, cause)
	}
	dead := fmt.Errorf("%w: engine did not respond to %s within %s and was killed; restart the session: %w",
		ErrDead, s.cfg.Interrupt, s.cfg.InterruptGrace, cause)
	s.kill(eng, dead)
	return s.clean(text, command, sent.Command), dead
}

// await waits for the sentinel. ok reports it was seen; err is set when the
// engine died; neither means ctx ended.
func (s *Session) await(ctx context.Context, eng *engine, done func(string) int) (text string, ok bool, err error) {
	for {
		text = eng.out.text()
		if i := done(text); i >= 0 {
			return text[:i], true, nil
		}
		select {
		case <-eng.out.notify:
		case <-eng.p.Done():
			// The streams may still be draining: one last look.
			text = eng.out.text()
			if i := done(text); i >= 0 {
				return text[:i], true, nil
			}
			dead := &ExitError{Status: exitStatus(eng.p), Tail: tail(text, 20)}
			s.markDead(eng, dead)
			return text, false, dead
		case <-ctx.Done():
			return text, false, nil
		}
	}
}

// send queues input for the engine's writer goroutine, which keeps writes in
// order and never blocks the caller on a stuck engine's full pipe.
func send(eng *engine, input string) {
	select {
	case eng.writes <- input:
	case <-eng.p.Done():
	}
}

// writeLoop is the engine's only stdin writer. It ends with the engine; a
// write blocked on a stuck engine ends when kill closes stdin.
func (eng *engine) writeLoop() {
	for {
		select {
		case in := <-eng.writes:
			_, _ = io.WriteString(eng.stdin, in)
		case <-eng.p.Done():
			return
		}
	}
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

// clean strips ANSI, prompts, echoes of the command and the sentinel, and
// blank edges.
func (s *Session) clean(text, command, sentinel string) string {
	lines := strings.Split(text, "\n")
	out := lines[:0]
	for _, l := range lines {
		l = strings.TrimRight(l, "\r")
		if s.cfg.Prompt != nil {
			for {
				loc := s.cfg.Prompt.FindStringIndex(l)
				if loc == nil || loc[0] != 0 || loc[1] == 0 {
					break
				}
				l = l[loc[1]:]
			}
		}
		if t := strings.TrimSpace(l); t == strings.TrimSpace(sentinel) || (t != "" && t == strings.TrimSpace(command)) {
			continue
		}
		out = append(out, l)
	}
	return strings.Trim(strings.Join(out, "\n"), "\n")
}

func tail(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func exitStatus(p *spawn.Process) string {
	res, err := p.Wait()
	if res == nil {
		return fmt.Sprintf("pid %d ended: %v", p.Pid(), err)
	}
	return res.String()
}
