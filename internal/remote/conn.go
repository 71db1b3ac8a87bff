package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// ErrConnect: the connection to a host could not be made (refused,
// unreachable, host key refused, authentication failed).
var ErrConnect = errors.New("ssh connection failed")

// ErrLost: the connection to a host ended while in use.
var ErrLost = errors.New("ssh connection lost")

// readyMark is what the master's remote command prints once the connection
// is up; its control socket listens before the remote command runs.
const readyMark = "triage-ssh-ready"

// Conn is one host's connection: an ssh master that clients reach through
// its control socket.
type Conn struct {
	Host    string
	ssh     string // the ssh client's path
	config  string // ssh -F, or "" for the user's own
	control string // control socket path

	master *spawn.Process
	stdin  *os.File // the master's remote command reads it; closing it ends the session
	once   sync.Once

	agentMu sync.Mutex
	agent   *agent // the host's job agent, started by the first job
}

// options are every ssh invocation's: no prompt, strict host keys, no
// forwarding, ssh's own warnings kept out of the programs' output.
func (c *Conn) options() []string {
	var o []string
	if c.config != "" {
		o = append(o, "-F", c.config)
	}
	return append(o, "-T", "-S", c.control,
		"-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
		"-o", "ForwardAgent=no", "-o", "ForwardX11=no", "-o", "PermitLocalCommand=no",
		"-o", "LogLevel=ERROR")
}

// Argv is the local argv that runs argv on the host through the master: the
// remote words are quoted for the remote user's shell (Command). When the
// master is gone, ssh would quietly make a connection of its own; the
// ProxyCommand that fails at once (used only then) makes that a clear
// failure instead, which the next Pool.Conn repairs.
func (c *Conn) Argv(argv []string) []string { return c.ShellArgv(Command(argv)) }

// ShellArgv is the local argv that has the remote user's shell run script
// on the host. Only triage's own text may be in script: the user's words
// go through Command.
func (c *Conn) ShellArgv(script string) []string {
	out := append([]string{c.ssh}, c.options()...)
	return append(out, "-o", "ControlMaster=no", "-o", "ProxyCommand=false", c.Host, "--", script)
}

// connect starts the master and waits until its remote command says the
// connection is up, or the master ends (the error quotes ssh).
func (c *Conn) connect(ctx context.Context, timeout time.Duration) error {
	argv := append([]string{c.ssh}, c.options()...)
	argv = append(argv, "-o", "ControlMaster=yes", "-o", "ControlPersist=no",
		"-o", fmt.Sprintf("ConnectTimeout=%d", int(timeout.Seconds())),
		"-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3",
		c.Host, "--", "echo "+readyMark+" && exec cat >/dev/null")
	// A master killed outright leaves its socket, on which a new one
	// would not listen.
	if err := os.Remove(c.control); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s: %w", ErrConnect, c.Host, err)
	}
	out := &masterOutput{ready: make(chan struct{})}
	// The master outlives this call: it serves every later command.
	p, stdin, err := spawn.StartInteractive(context.WithoutCancel(ctx), spawn.Spec{Argv: argv, MergeStderr: true, Stdout: out})
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrConnect, c.Host, err)
	}
	c.master, c.stdin = p, stdin
	wait, cancel := context.WithTimeout(ctx, timeout+5*time.Second)
	defer cancel()
	select {
	case <-out.ready:
		return nil
	case <-p.Done():
		res, _ := p.Wait()
		c.Close()
		return fmt.Errorf("%w: %s: %s", ErrConnect, c.Host, explain(out.text(), res))
	case <-wait.Done():
		c.Close()
		return fmt.Errorf("%w: %s: no answer within %s: %s", ErrConnect, c.Host, timeout, out.text())
	}
}

// Alive reports whether the master is still up and its socket answers:
// a master that was killed is seen as gone at once, even before it is
// reaped.
func (c *Conn) Alive() bool {
	select {
	case <-c.master.Done():
		return false
	default:
	}
	s, err := net.Dial("unix", c.control)
	if err != nil {
		return false
	}
	s.Close()
	return true
}

// Dropped reports whether the connection is gone or goes within grace: a
// command through it that just failed may have seen the master's end before
// the master was reaped, or even before its socket closed.
func (c *Conn) Dropped(grace time.Duration) bool {
	if !c.Alive() {
		return true
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-c.master.Done():
		return true
	case <-t.C:
		return false
	}
}

// Name is the host's name, "" for a nil connection (a local run).
func (c *Conn) Name() string {
	if c == nil {
		return ""
	}
	return c.Host
}

// Wait returns once the master has ended.
func (c *Conn) Wait() { <-c.master.Done() }

// Pid is the master's pid (its process group's).
func (c *Conn) Pid() int { return c.master.Pid() }

// Close ends the master and with it every command running through it.
func (c *Conn) Close() {
	c.once.Do(func() {
		c.closeAgent()
		c.stdin.Close()
		_, _ = c.master.Stop(2 * time.Second)
	})
}

// explain is ssh's own message with what to do for the usual failures.
func explain(msg string, res *spawn.Result) string {
	if msg == "" && res != nil {
		msg = res.String()
	}
	switch {
	case strings.Contains(msg, "Host key verification failed"), strings.Contains(msg, "host key is known"),
		strings.Contains(msg, "REMOTE HOST IDENTIFICATION HAS CHANGED"):
		msg += " (triage checks host keys strictly: verify the host's key, then add it to the known_hosts file your ssh configuration names)"
	case strings.Contains(msg, "Permission denied"):
		msg += " (triage never prompts: give an identity file in your ssh configuration, or load the key into an agent)"
	}
	return msg
}

// masterOutput watches the master's output for readyMark and keeps the
// start of the rest, which is ssh's error when it fails.
type masterOutput struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	seen  bool
	ready chan struct{}
}

func (m *masterOutput) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.buf.Len() < 4096 {
		m.buf.Write(p[:min(len(p), 4096-m.buf.Len())])
	}
	if !m.seen && bytes.Contains(m.buf.Bytes(), []byte(readyMark+"\n")) {
		m.seen = true
		close(m.ready)
	}
	return len(p), nil
}

func (m *masterOutput) text() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.TrimSpace(strings.ReplaceAll(m.buf.String(), readyMark+"\n", ""))
}
