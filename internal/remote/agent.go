package remote

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// agentScript is the job agent (perl, which every Debian system has:
// perl-base is essential, and macOS ships it).
//
//go:embed agent.pl
var agentScript string

// agentMagic is the agent's first line: what comes before it is the login
// shell's (a .bashrc that prints), skipped.
const agentMagic = "\x1etriage-agent 1\n"

// window is how much of one job's output may be in flight (sent by the
// agent, not yet taken by the job's sinks). A job that prints a lot holds
// at most this much here, and the agent reads every job's pipe in turn, so
// it cannot hold the others up: a slow sink slows its own job only.
const window = 256 << 10

// maxFrame bounds a frame from the agent (its output frames are 64 KiB).
const maxFrame = 1 << 20

// agent is the job agent on a connection's host: one ssh session through
// the master, whose standard input and output carry the frames of
// agent.pl. Ownership: spawn's reader goroutine alone calls Write (the
// demultiplexer), which never blocks: it hands each frame to its job's
// queue. One goroutine waits for the session's end and fails the jobs
// still running. Frames to the agent are written whole under wmu.
type agent struct {
	conn  *Conn
	proc  *spawn.Process
	stdin *os.File
	wmu   sync.Mutex
	// stderr keeps the start of the session's standard error: perl's or
	// ssh's complaint when the agent cannot start or dies.
	stderr clipped

	mu    sync.Mutex
	jobs  map[uint32]*Process
	next  uint32
	ended error // why the session ended; nil while it runs

	buf   []byte // what came of a frame so far
	ready chan struct{}
	greet bool // agentMagic was seen
	done  chan struct{}
}

// startAgent starts the agent over the connection and waits for its first
// line, within timeout.
func (c *Conn) startAgent(ctx context.Context, timeout time.Duration) (*agent, error) {
	a := &agent{conn: c, jobs: map[uint32]*Process{}, ready: make(chan struct{}), done: make(chan struct{}), stderr: clipped{max: 4096}}
	// The agent's core limit is the hard one: a job that wants none lowers
	// its own.
	script := `ulimit -S -c "$(ulimit -H -c)" 2>/dev/null; exec ` + Command([]string{"perl", "-e", agentScript, strconv.Itoa(window)})
	p, stdin, err := spawn.StartInteractive(context.WithoutCancel(ctx), spawn.Spec{Argv: c.ShellArgv(script), Stdout: a, Stderr: &a.stderr})
	if err != nil {
		return nil, fmt.Errorf("starting the job agent on %s: %w", c.Host, err)
	}
	a.proc, a.stdin = p, stdin
	go a.watch()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-a.ready:
		return a, nil
	case <-a.done:
		return nil, a.ended
	case <-t.C:
		err = fmt.Errorf("the job agent on %s did not answer within %s", c.Host, timeout)
	case <-ctx.Done():
		err = ctx.Err()
	}
	a.close()
	return nil, err
}

// watch waits for the session's end and fails the jobs it leaves.
func (a *agent) watch() {
	res, _ := a.proc.Wait()
	err := a.whyEnded(res)
	a.mu.Lock()
	a.ended = err
	jobs := a.jobs
	a.jobs = map[uint32]*Process{}
	a.mu.Unlock()
	for _, j := range jobs {
		j.lose(err)
	}
	close(a.done)
}

// whyEnded says why the session ended: the connection went (its master
// with it), or the agent (perl missing, killed on the host).
func (a *agent) whyEnded(res *spawn.Result) error {
	if a.conn.Dropped(time.Second) {
		return &LostError{Host: a.conn.Host, Conn: true}
	}
	msg := strings.TrimSpace(a.stderr.String())
	if msg == "" {
		msg = "ssh: " + res.String()
	}
	return &LostError{Host: a.conn.Host, Detail: msg}
}

// LostError: a job's end is unknown, because its connection or its host's
// job agent went before the job's exit came back.
type LostError struct {
	Host   string
	Conn   bool   // the connection was lost (else the agent ended)
	Detail string // what the agent's session said, when it ended alone
}

func (e *LostError) Error() string {
	if e.Conn {
		return "the ssh connection to " + e.Host + " was lost"
	}
	return "the job agent on " + e.Host + " ended (" + e.Detail + ")"
}

// Unwrap makes a lost connection ErrLost.
func (e *LostError) Unwrap() error {
	if e.Conn {
		return ErrLost
	}
	return nil
}

// close ends the agent's session: the agent sees the end of its input and
// exits, and its watchdog ends the jobs still running.
func (a *agent) close() {
	a.stdin.Close()
	_, _ = a.proc.Stop(2 * time.Second)
}

// alive reports whether the session still runs.
func (a *agent) alive() bool {
	select {
	case <-a.done:
		return false
	default:
		return true
	}
}

// waitEnded waits (a few seconds at most) for the session's end, which a
// failed write to it foretells, and says why it ended.
func (a *agent) waitEnded(ctx context.Context) error {
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	select {
	case <-a.done:
		return a.ended
	case <-t.C:
	case <-ctx.Done():
	}
	a.close() // a session that cannot take a frame is no use
	<-a.done
	return a.ended
}

// send writes one frame to the agent; an error means the session is gone
// (watch fails the jobs).
func (a *agent) send(typ byte, id uint32, payload []byte) error {
	var h [9]byte
	h[0] = typ
	binary.BigEndian.PutUint32(h[1:], id)
	binary.BigEndian.PutUint32(h[5:], uint32(len(payload)))
	a.wmu.Lock()
	defer a.wmu.Unlock()
	if _, err := a.stdin.Write(append(h[:], payload...)); err != nil {
		return fmt.Errorf("the job agent on %s: %w", a.conn.Host, err)
	}
	return nil
}

// Write is the session's standard output: frames, after agentMagic.
func (a *agent) Write(p []byte) (int, error) {
	a.buf = append(a.buf, p...)
	if !a.greet {
		i := bytes.Index(a.buf, []byte(agentMagic))
		if i < 0 {
			if len(a.buf) > 64<<10 { // a login shell's chatter, bounded
				a.buf = a.buf[len(a.buf)-len(agentMagic):]
			}
			return len(p), nil
		}
		a.buf, a.greet = a.buf[i+len(agentMagic):], true
		close(a.ready)
	}
	for len(a.buf) >= 9 {
		n := binary.BigEndian.Uint32(a.buf[5:])
		if n > maxFrame {
			return 0, fmt.Errorf("the job agent on %s sent a frame of %d bytes", a.conn.Host, n)
		}
		if len(a.buf) < 9+int(n) {
			break
		}
		a.dispatch(a.buf[0], binary.BigEndian.Uint32(a.buf[1:]), bytes.Clone(a.buf[9:9+n]))
		a.buf = a.buf[9+n:]
	}
	if len(a.buf) == 0 {
		a.buf = nil // the next read's bytes need not be copied behind old ones
	}
	return len(p), nil
}

// dispatch hands a frame to its job.
func (a *agent) dispatch(typ byte, id uint32, payload []byte) {
	a.mu.Lock()
	j := a.jobs[id]
	if typ == 'X' {
		delete(a.jobs, id) // no frame follows
	}
	a.mu.Unlock()
	if j == nil {
		return
	}
	switch typ {
	case 'P':
		pid, _ := strconv.Atoi(string(payload))
		j.started(pid)
	case 'O':
		j.push(event{out: payload})
	case 'X':
		j.push(event{exit: parseExit(payload)})
	}
}

// add registers a new job and returns its id, or why the agent cannot
// take it.
func (a *agent) add(j *Process) (uint32, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ended != nil {
		return 0, a.ended
	}
	a.next++
	a.jobs[a.next] = j
	return a.next, nil
}

// drop forgets a job whose start could not be sent.
func (a *agent) drop(id uint32) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.jobs, id)
}

// jobAgent returns the connection's agent, starting one when there is none
// or the last one ended.
func (c *Conn) jobAgent(ctx context.Context) (*agent, error) {
	c.agentMu.Lock()
	defer c.agentMu.Unlock()
	if c.agent != nil && c.agent.alive() {
		return c.agent, nil
	}
	if !c.Alive() {
		return nil, fmt.Errorf("%w to %s: nothing ran there (the next call reconnects)", ErrLost, c.Host)
	}
	a, err := c.startAgent(ctx, 20*time.Second)
	if err != nil {
		return nil, err
	}
	c.agent = a
	return a, nil
}

// closeAgent ends the connection's agent, if it has one.
func (c *Conn) closeAgent() {
	c.agentMu.Lock()
	a := c.agent
	c.agent = nil
	c.agentMu.Unlock()
	if a != nil {
		a.close()
	}
}
