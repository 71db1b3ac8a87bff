// Package daemon is where the CLI's daemon lives and how it is reached: one
// `triage serve --unix` per user, working directory and configuration (see
// docs/ARCHITECTURE.md "Front ends" for why per directory),
// keeping stateful tools (background processes, debug and dump sessions,
// session defaults) alive between `triage call` invocations.
//
// Its files are in the user's runtime directory ($XDG_RUNTIME_DIR/triage, or
// a private directory under the temporary directory), which must be the
// user's own and closed to others (0700): the socket is the only thing that
// stands between another local user and a process that runs programs as
// this one. For each daemon: NAME.sock (mode 0600), NAME.lock (held while a
// daemon is started, so that concurrent first calls start one), NAME.pid and
// NAME.log (its stderr). A daemon that ends cleanly removes them all
// (Leave); one killed leaves them to the next call, which replaces it.
package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Paths are the files of one daemon.
type Paths struct {
	Dir, Socket, Lock, Pid, Log string
}

// Key names the daemon that serves calls made in cwd with the given
// configuration (the global flags and the TRIAGE_* environment): calls that
// would build different servers in-process reach different daemons.
func Key(cwd string, settings []string) string {
	s := append([]string{cwd}, settings...)
	sort.Strings(s[1:])
	sum := sha256.Sum256([]byte(strings.Join(s, "\x00")))
	return hex.EncodeToString(sum[:8])
}

// For returns the paths of the daemon named key, creating the runtime
// directory if needed and refusing one that others can reach.
func For(key string) (Paths, error) {
	dir, err := runtimeDir()
	if err != nil {
		return Paths{}, err
	}
	base := filepath.Join(dir, key)
	p := Paths{Dir: dir, Socket: base + ".sock", Lock: base + ".lock", Pid: base + ".pid", Log: base + ".log"}
	if len(p.Socket) > maxSocketPath {
		return Paths{}, fmt.Errorf("the daemon's socket path %s is %d bytes, longer than a unix socket may be (%d): set XDG_RUNTIME_DIR to a shorter directory", p.Socket, len(p.Socket), maxSocketPath)
	}
	return p, nil
}

// maxSocketPath is the longest socket path every system takes (sun_path is
// 108 bytes on Linux, 104 on macOS, with its terminating NUL).
const maxSocketPath = 103

// runtimeDir is $XDG_RUNTIME_DIR/triage, else triaged-UID in the temporary
// directory; made 0700 if new, refused unless the user's own and 0700.
func runtimeDir() (string, error) {
	dir := filepath.Join(os.TempDir(), "triaged-"+strconv.Itoa(os.Getuid()))
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" {
		dir = filepath.Join(x, "triage")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("daemon directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("daemon directory: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || fi.Mode().Perm() != 0o700 || ok && int(st.Uid) != os.Getuid() {
		return "", fmt.Errorf("daemon directory %s is not a directory of yours closed to others (mode %v): remove it or fix it (chmod 700)", dir, fi.Mode())
	}
	return dir, nil
}

// ErrNotRunning says no daemon answers on the socket.
var ErrNotRunning = errors.New("no daemon running")

// Dial connects to the daemon's socket. It returns ErrNotRunning (wrapped)
// when there is no socket, or one nobody listens on (a daemon killed
// without cleaning up: Stale reports which).
func Dial(ctx context.Context, p Paths) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", p.Socket)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotRunning, err)
	}
	return c, nil
}

// Stale reports a daemon's files with no daemon behind them: a socket
// nobody listens on, or whose recorded process is gone (a daemon killed
// with SIGKILL can still accept a connection for a moment while it dies).
func Stale(p Paths) bool {
	if _, err := os.Lstat(p.Socket); err != nil {
		return false
	}
	if pid := ReadPid(p); pid != 0 && !processAlive(pid) {
		return true
	}
	c, err := net.DialTimeout("unix", p.Socket, time.Second)
	if err != nil {
		return true
	}
	c.Close()
	return false
}

// processAlive reports a process that exists and has not exited (a zombie,
// dead but not yet reaped, counts as gone).
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc (macOS): the signal test is all there is
	}
	// pid (comm) STATE ...: comm may hold spaces and parentheses.
	rest := stat[strings.LastIndexByte(string(stat), ')')+1:]
	f := strings.Fields(string(rest))
	return len(f) == 0 || f[0] != "Z"
}

// Lock takes the daemon's start lock, waiting for another caller that holds
// it (it is starting the daemon); the returned function releases it. A
// daemon that ends cleanly removes the lock file under the lock (Leave): a
// caller that was waiting on the removed file finds it gone and locks the
// file now at the path instead, so that the lock is always the path's.
func Lock(p Paths) (func(), error) {
	for {
		f, err := os.OpenFile(p.Lock, os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			return nil, fmt.Errorf("daemon lock: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			return nil, fmt.Errorf("daemon lock: %w", err)
		}
		held, herr := f.Stat()
		now, nerr := os.Stat(p.Lock)
		if herr == nil && nerr == nil && os.SameFile(held, now) {
			return func() {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		f.Close() // removed while we waited: the path's file is the lock now
	}
}

// Leave removes what a daemon that ended cleanly leaves of itself once its
// socket and pid file are gone: its lock and log files, so that a
// directory's daemon leaves nothing in the runtime directory (its log is
// kept when it ended with an error, to be read). It takes the start lock,
// and leaves the files to a daemon started meanwhile (its pid file is
// there). The runtime directory itself stays, empty, as tmux's does:
// removing it would race the next call's start.
func Leave(p Paths) {
	unlock, err := Lock(p)
	if err != nil {
		return
	}
	defer unlock()
	if ReadPid(p) != 0 {
		return
	}
	os.Remove(p.Log)
	os.Remove(p.Lock) // held: a caller waiting on it locks the next one (Lock)
	forgetIDs(p.Dir)
}

// Gone reports whether the daemon process pid has ended (a zombie counts).
func Gone(pid int) bool { return !processAlive(pid) }

// WaitReady waits until the daemon accepts connections, it exits (exited
// closes), or ctx ends, retrying with a growing pause.
func WaitReady(ctx context.Context, p Paths, exited <-chan struct{}) error {
	pause := time.Millisecond
	for {
		if c, err := Dial(ctx, p); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("the daemon exited at start-up: see %s", p.Log)
		case <-ctx.Done():
			return fmt.Errorf("the daemon did not answer on %s: %w (see %s)", p.Socket, ctx.Err(), p.Log)
		case <-time.After(pause):
		}
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// ReadPid returns the pid the daemon recorded, 0 when there is none.
func ReadPid(p Paths) int {
	b, err := os.ReadFile(p.Pid)
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(first))
	return pid
}

// ReadDir returns the directory the daemon recorded it serves (its
// working directory: the pid file's second line), "" when there is none.
func ReadDir(p Paths) string {
	b, err := os.ReadFile(p.Pid)
	if err != nil {
		return ""
	}
	_, dir, _ := strings.Cut(string(b), "\n")
	return strings.TrimSuffix(dir, "\n")
}

// Listen creates the socket (mode 0600; the directory, 0700, already keeps
// others out before the chmod) and records the pid and the directory it
// serves; the returned function removes both, unless another daemon has
// taken their place (the pid file is then its own: one started when this
// one's socket had gone).
func Listen(p Paths) (net.Listener, func(), error) {
	os.Remove(p.Socket) // a stale one: the caller holds the lock, or was told to replace it
	ln, err := net.Listen("unix", p.Socket)
	if err != nil {
		return nil, nil, fmt.Errorf("daemon socket: %w", err)
	}
	if err := os.Chmod(p.Socket, 0o600); err != nil {
		ln.Close()
		return nil, nil, fmt.Errorf("daemon socket: %w", err)
	}
	// The directory it serves is read by `daemon status --all`, also of a
	// daemon that no longer answers.
	wd, _ := os.Getwd()
	if err := os.WriteFile(p.Pid, []byte(strconv.Itoa(os.Getpid())+"\n"+wd+"\n"), 0o600); err != nil {
		ln.Close()
		return nil, nil, fmt.Errorf("daemon pid file: %w", err)
	}
	return ln, func() {
		mine := ReadPid(p) == os.Getpid()
		if ul, ok := ln.(*net.UnixListener); ok && !mine {
			ul.SetUnlinkOnClose(false) // the path is the other daemon's socket
		}
		ln.Close()
		if mine {
			os.Remove(p.Socket)
			os.Remove(p.Pid)
		}
	}, nil
}

// FromSocket returns the paths of the daemon whose socket is sock.
func FromSocket(sock string) Paths {
	base := strings.TrimSuffix(sock, ".sock")
	return Paths{Dir: filepath.Dir(sock), Socket: sock, Lock: base + ".lock", Pid: base + ".pid", Log: base + ".log"}
}
