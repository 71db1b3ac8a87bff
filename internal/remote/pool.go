// Package remote reaches other hosts over ssh: one multiplexed connection
// per host, whose master is triage's own child (its own process group,
// reaped, ended with triage), and the argv of a command run there through
// it, so a command costs no new handshake. Jobs (Conn.Start: the programs
// triage runs, builds and tests there) go through one job agent per
// connection (agent.pl, started once over one ssh session), which forks
// each itself and frames their output and exit back, so a job costs no ssh
// session, no login shell and no perl start. Every connection is made with
// BatchMode (never a password prompt), strict host key checking against
// the known_hosts the user's ssh configuration names (an unknown or changed
// host key is refused, never accepted), and no agent or X11 forwarding.
// The ssh configuration is the user's own, or the file Options.Config
// names (config ssh.config, TRIAGE_SSH_CONFIG).
package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/scratch"
)

// ErrNoSSH: the ssh client is not installed.
var ErrNoSSH = errors.New("ssh not found in PATH (Debian package openssh-client)")

// Options configure a Pool.
type Options struct {
	// Config is the ssh client configuration file (ssh -F); empty: the
	// user's own.
	Config string
	// Dir is where the private directory of control sockets is made
	// (default: the temporary directory).
	Dir string
	// ConnectTimeout bounds a connection's handshake (default 20s).
	ConnectTimeout time.Duration
}

// Pool keeps one connection per host. It is safe for concurrent use.
type Pool struct {
	opts Options

	mu     sync.Mutex
	dir    *scratch.Owned // control sockets, made on first use
	hosts  map[string]*hostConn
	closed bool
}

// hostConn serialises connecting to one host; the others are not held up.
type hostConn struct {
	mu   sync.Mutex
	conn *Conn
}

// NewPool returns a Pool with no connections.
func NewPool(opts Options) *Pool {
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 20 * time.Second
	}
	return &Pool{opts: opts, hosts: map[string]*hostConn{}}
}

// Conn returns the connection to host, connecting first when there is none
// or its master ended (a dropped connection reconnects here). A bad host
// name is the caller's mistake (fault.Usage); a host that cannot be
// reached, or no ssh client, is fault.Unavailable.
func (p *Pool) Conn(ctx context.Context, host string) (*Conn, error) {
	if err := CheckHost(host); err != nil {
		return nil, fault.Usage(err)
	}
	c, err := p.conn(ctx, host)
	if err != nil {
		return nil, fault.Unavailable(err)
	}
	return c, nil
}

func (p *Pool) conn(ctx context.Context, host string) (*Conn, error) {
	hc, control, err := p.host(host)
	if err != nil {
		return nil, err
	}
	hc.mu.Lock()
	defer hc.mu.Unlock()
	if hc.conn != nil && hc.conn.Alive() {
		return hc.conn, nil
	}
	if hc.conn != nil {
		hc.conn.Close()
	}
	ssh, err := exec.LookPath("ssh")
	if err != nil {
		return nil, ErrNoSSH
	}
	c := &Conn{Host: host, ssh: ssh, config: p.opts.Config, control: control}
	if err := c.connect(ctx, p.opts.ConnectTimeout); err != nil {
		return nil, err
	}
	hc.conn = c
	return c, nil
}

// host returns host's entry and control socket path, making the socket
// directory on first use.
func (p *Pool) host(host string) (*hostConn, string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, "", errors.New("ssh connections: closed")
	}
	if p.dir == nil {
		d, err := scratch.Dir(p.opts.Dir, "ssh")
		if err != nil {
			return nil, "", fmt.Errorf("ssh control directory: %w", err)
		}
		p.dir = d
	}
	hc := p.hosts[host]
	if hc == nil {
		hc = &hostConn{}
		p.hosts[host] = hc
	}
	// A hash keeps the socket path short (a unix socket's is bounded) and
	// free of the host name's characters.
	sum := sha256.Sum256([]byte(host))
	return hc, filepath.Join(p.dir.Path, hex.EncodeToString(sum[:8])), nil
}

// Close ends every connection and removes the socket directory.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	hosts, dir := p.hosts, p.dir
	p.hosts, p.dir = map[string]*hostConn{}, nil
	p.mu.Unlock()
	for _, hc := range hosts {
		hc.mu.Lock()
		if hc.conn != nil {
			hc.conn.Close()
		}
		hc.mu.Unlock()
	}
	if dir != nil {
		return dir.Remove()
	}
	return nil
}
