package dap

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/toolpath"
)

// Remote sessions: the adapter runs on the host, speaking DAP on the
// stdio of an ssh command through the host's one connection (remote.Conn),
// so nothing listens on either side and no port is forwarded. The target's
// paths and pid are the host's; nothing is looked up here.

// lostGrace is how long a remote adapter's end is given to show as the
// connection's: the ssh client may end before its master is reaped.
const lostGrace = 2 * time.Second

// target is what a start names: checked here for a local session, on the
// host for a remote one. program is resolved on the host's PATH there when
// it has no slash.
type target struct {
	host    string
	program string
	core    string
	pid     int
}

// prepare checks t before the adapter starts, and for a remote session
// connects to its host. It returns the program to hand the adapter.
func (b *Backend) prepare(ctx context.Context, t target) (string, error) {
	if t.host == "" {
		return t.program, t.checkLocal()
	}
	if b.pool == nil {
		return "", fmt.Errorf("debugging on %s: this backend was made without ssh connections", t.host)
	}
	conn, err := b.pool.Conn(ctx, t.host)
	if err != nil {
		return "", err
	}
	b.mu.Lock()
	b.host, b.ssh = t.host, conn
	b.mu.Unlock()
	return t.checkRemote(ctx, conn)
}

func (t target) checkLocal() error {
	if t.pid != 0 {
		return pidExists(t.pid)
	}
	if err := checkProgram(t.program); err != nil {
		return err
	}
	if t.core != "" {
		return checkFile(t.core, "core file")
	}
	return nil
}

// checkRemote is checkLocal on the host.
func (t target) checkRemote(ctx context.Context, conn *remote.Conn) (string, error) {
	if t.pid != 0 {
		ok, err := conn.ProcessExists(ctx, t.pid)
		if err == nil && !ok {
			err = fmt.Errorf("%w: no process with pid %d on %s", ErrNoTarget, t.pid, t.host)
		}
		return t.program, err
	}
	var files []string
	if t.core != "" {
		files = append(files, t.core)
	}
	program, err := conn.Program(ctx, t.program, files...)
	if errors.Is(err, remote.ErrNotOnHost) {
		err = fmt.Errorf("%w: %w", ErrNoTarget, err)
	}
	return program, err
}

// startRemote finds the adapter on the host and starts it there.
func (b *Backend) startRemote(ctx context.Context, conn *remote.Conn) (*started, string, error) {
	a, err := remoteAdapter(ctx, conn, b.kind)
	if err != nil {
		return nil, "", err
	}
	b.mu.Lock()
	b.adapterName = path.Base(a.Argv[0])
	b.mu.Unlock()
	a.Argv = conn.Argv(a.Argv)
	ad, err := startAdapter(ctx, a, b.cfg.Dir)
	return ad, a.Kind, err
}

// remoteAdapter finds an adapter of kind on the host's PATH: "" takes
// lldb-dap (or lldb-vscode[-N]), then a gdb with DAP. dlv is refused: it
// speaks DAP only over TCP, which would need a port forwarded or open on
// the host.
func remoteAdapter(ctx context.Context, conn *remote.Conn, kind string) (Adapter, error) {
	if kind == "" || kind == KindLLDB {
		p, err := conn.LookPath(ctx, toolpath.LLDBDAP.HostCandidates()...)
		if err == nil {
			return Adapter{Kind: KindLLDB, Argv: []string{p}}, nil
		}
		if !errors.Is(err, remote.ErrNotOnHost) || kind == KindLLDB {
			return Adapter{}, notOnHost(err, "no lldb-dap or lldb-vscode[-N] in PATH", conn.Host)
		}
	}
	switch kind {
	case "", KindGDB:
		p, err := conn.LookPath(ctx, "gdb")
		if err != nil {
			return Adapter{}, notOnHost(err, "no lldb-dap, lldb-vscode[-N] or gdb in PATH", conn.Host)
		}
		version, err := conn.Run(ctx, []string{p, "--version"}, 10*time.Second)
		if err != nil {
			return Adapter{}, err
		}
		if !GDBSupportsDAP(version) {
			first, _, _ := strings.Cut(version, "\n")
			return Adapter{}, fmt.Errorf("%w on %s: no lldb-dap or lldb-vscode[-N] in PATH, and its %s has no DAP interpreter (needs gdb 14 or later): %s",
				ErrAdapterNotFound, conn.Host, p, first)
		}
		return Adapter{Kind: KindGDB, Argv: []string{p, "-q", "-nx", "-i=dap"}}, nil
	case KindDlv:
		return Adapter{}, fmt.Errorf("%w on %s: dlv is not used on a remote host (it speaks DAP only over TCP); debug there with lldb-dap or gdb 14+", ErrAdapterNotFound, conn.Host)
	}
	return Adapter{}, fmt.Errorf("%w: unknown adapter kind %q (want lldb, dlv or gdb)", ErrAdapterNotFound, kind)
}

// notOnHost words a failed look-up: the adapter missing, or the error
// that kept us from looking (a lost connection).
func notOnHost(err error, missing, host string) error {
	if errors.Is(err, remote.ErrNotOnHost) {
		return fmt.Errorf("%w on %s: %s (install lldb there, e.g. Debian lldb-16)", ErrAdapterNotFound, host, missing)
	}
	return err
}

// lostCause is why a remote adapter ended when its connection dropped
// with it; nil for a local one or a connection still up.
func (b *Backend) lostCause() error {
	b.mu.Lock()
	conn, host := b.ssh, b.host
	b.mu.Unlock()
	if conn == nil || !conn.Dropped(lostGrace) {
		return nil
	}
	return fmt.Errorf("%w to %s: the debug session ended (its debugger and target there are gone)", remote.ErrLost, host)
}

// killTarget kills pid, a launched target whose adapter is gone: here, or
// on the host through its connection while that is up (when it is not,
// the host's sshd has closed the adapter's input, and its debugger takes
// the target with it).
func (b *Backend) killTarget(pid int) {
	if pid <= 0 {
		return
	}
	b.mu.Lock()
	conn := b.ssh
	b.mu.Unlock()
	if conn == nil {
		killLocal(pid)
		return
	}
	if conn.Alive() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = conn.Kill(ctx, pid)
	}
}
