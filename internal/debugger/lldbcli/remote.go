package lldbcli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/toolpath"
)

// Remote sessions: lldb runs on the host, driven over the stdio of an ssh
// command through the host's one connection, exactly as a local lldb is
// over its pipes. The target's paths and pid are the host's.

// lostGrace is how long lldb's end is given to show as its connection's.
const lostGrace = 2 * time.Second

// prepare checks the target before lldb starts: here for a local session,
// on host for a remote one (connecting to it). files are the program
// (resolved on the host's PATH when it has no slash) and what it reads;
// pid a process to attach to. It returns the program to hand lldb.
func (b *Backend) prepare(ctx context.Context, host string, pid int, files ...string) (string, error) {
	if host == "" {
		if pid != 0 {
			return "", nil
		}
		for i, f := range files {
			what := "core file"
			if i == 0 {
				what = "program"
			}
			if err := checkFile(f, what); err != nil {
				return "", err
			}
		}
		return files[0], nil
	}
	if b.pool == nil {
		return "", fmt.Errorf("debugging on %s: this backend was made without ssh connections", host)
	}
	conn, err := b.pool.Conn(ctx, host)
	if err != nil {
		return "", err
	}
	b.mu.Lock()
	b.host, b.ssh = host, conn
	b.mu.Unlock()
	if pid != 0 {
		ok, err := conn.ProcessExists(ctx, pid)
		if err == nil && !ok {
			err = fmt.Errorf("attaching: no process with pid %d on %s", pid, host)
		}
		return "", err
	}
	return conn.Program(ctx, files[0], files[1:]...)
}

// remoteArgv is argv run on the session's host through its connection,
// connecting again when it dropped (a core's lldb restarted after one),
// with lldb found on the host's PATH; argv unchanged for a local session.
func (b *Backend) remoteArgv(ctx context.Context, argv []string) ([]string, error) {
	b.mu.Lock()
	host := b.host
	b.mu.Unlock()
	if host == "" {
		return argv, nil
	}
	conn, err := b.pool.Conn(ctx, host)
	if err != nil {
		return nil, err
	}
	if argv[0] == "" {
		if argv[0], err = conn.LookPath(ctx, toolpath.LLDB.Candidates()...); err != nil {
			if errors.Is(err, remote.ErrNotOnHost) {
				err = fmt.Errorf("%w on %s", ErrLLDBNotFound, host)
			}
			return nil, err
		}
	}
	b.mu.Lock()
	b.ssh = conn
	b.mu.Unlock()
	return conn.Argv(argv), nil
}

// lostConnection is why lldb ended when a remote session's connection
// dropped with it; nil otherwise.
func (b *Backend) lostConnection() error {
	b.mu.Lock()
	conn, host := b.ssh, b.host
	b.mu.Unlock()
	if conn == nil || !conn.Dropped(lostGrace) {
		return nil
	}
	return fmt.Errorf("%w to %s", remote.ErrLost, host)
}
