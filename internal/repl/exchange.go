package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// This file holds the exchanges with a running engine: a command, its
// sentinel, the wait for both, and the interrupt when a wait runs out.

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
// returned with seenIt false. ctx (or, without a deadline, the watch plus
// CommandTimeout) still bounds the whole command, with RunUntil's interrupt
// and death rules: a watch as long as CommandTimeout must not run into it,
// or a target still running would read as an interrupted command.
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
		ctx, cancel = context.WithTimeout(ctx, max(watch, 0)+s.cfg.CommandTimeout)
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

// AwaitOutput waits, sending nothing and without holding the engine, until
// seen holds for what the engine has printed since the last command began
// (lldb's report of a stop that no command waits for), and returns it. It
// returns false when ctx ends, the engine dies, or a command is under way
// or begins: that command's caller reads what the engine prints. One
// AwaitOutput at a time per session: a second one would share its wake-ups.
func (s *Session) AwaitOutput(ctx context.Context, seen func(output string) bool) (string, bool) {
	s.mu.Lock()
	eng, dead := s.eng, s.dead
	s.mu.Unlock()
	began := 0
	if eng != nil {
		began = eng.out.began()
	}
	if eng == nil || dead != nil || len(s.sem) == 0 { // the token is out: a command runs
		return "", false
	}
	for {
		text, now := eng.out.textSince()
		if now != began {
			return "", false
		}
		if seen(text) {
			return text, true
		}
		select {
		case <-eng.out.idle:
		case <-eng.p.Done():
			return "", false
		case <-ctx.Done():
			return "", false
		}
	}
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
