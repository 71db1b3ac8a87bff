package remote

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// lookTimeout bounds the look-ups on a host (a program on its PATH, a
// file's type): each is one short command over the connection.
const lookTimeout = 30 * time.Second

// ErrNotOnHost: a program or file the caller named is not on the host.
// The errors that match it say so in their own words.
var ErrNotOnHost = errors.New("not on the host")

// ErrNotRegular: a file the caller named is on the host but is not a
// regular file (or the host's stat is not GNU's).
var ErrNotRegular = errors.New("not a regular file on the host")

// hostFileError is an error whose text is msg alone, matching kind.
type hostFileError struct {
	msg  string
	kind error
}

func (e hostFileError) Error() string        { return e.msg }
func (e hostFileError) Is(target error) bool { return target == e.kind }

// lookScript prints the path of the first of its arguments the host's
// shell finds on its PATH (command -v: a builtin of every POSIX shell).
const lookScript = `for n do command -v -- "$n" && exit 0; done; exit 1`

// LookPath returns the path of the first of names found on the host's
// PATH, as the remote user's shell finds it. None there wraps
// ErrNotOnHost.
func (c *Conn) LookPath(ctx context.Context, names ...string) (string, error) {
	out, err := c.Run(ctx, append([]string{"sh", "-c", lookScript, "sh"}, names...), lookTimeout)
	var ee *ExitError
	if errors.As(err, &ee) {
		msg := fmt.Sprintf("on %s: %s not in PATH", c.Host, strings.Join(names, " or "))
		if ee.Stderr != "" {
			msg += " (" + ee.Stderr + ")"
		}
		return "", hostFileError{msg, ErrNotOnHost}
	}
	if err != nil {
		return "", err
	}
	path, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(path, "/") { // a shell builtin or function: no program
		return "", hostFileError{fmt.Sprintf("on %s: %s is no program there (%s)", c.Host, strings.Join(names, " or "), path), ErrNotOnHost}
	}
	return path, nil
}

// CheckFiles checks that every path is a regular file on the host
// (StatFiles, its identities dropped).
func (c *Conn) CheckFiles(ctx context.Context, paths ...string) error {
	_, err := c.StatFiles(ctx, paths...)
	return err
}

// StatFiles checks that every path is a regular file on the host (GNU
// stat -L: links are followed) and returns each one's identity there,
// "device:inode:size:mtime", in order. A file that is not there wraps
// ErrNotOnHost; a file of another kind, or a stat whose output is not
// GNU's, wraps ErrNotRegular; both name the host.
func (c *Conn) StatFiles(ctx context.Context, paths ...string) ([]string, error) {
	out, err := c.Run(ctx, append([]string{"stat", "-L", "-c", "%F|%d:%i:%s:%Y|%n", "--"}, paths...), lookTimeout)
	var ee *ExitError
	if errors.As(err, &ee) {
		return nil, hostFileError{fmt.Sprintf("on %s: %s", c.Host, ee.Stderr), ErrNotOnHost}
	}
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(paths) {
		return nil, hostFileError{fmt.Sprintf("on %s: unexpected stat output %q (a GNU stat is needed)", c.Host, out), ErrNotRegular}
	}
	ids := make([]string, len(lines))
	for i, l := range lines {
		kind, rest, ok := strings.Cut(l, "|")
		id, name, ok2 := strings.Cut(rest, "|")
		switch {
		case !ok || !ok2:
			return nil, hostFileError{fmt.Sprintf("on %s: unexpected stat output %q (a GNU stat is needed)", c.Host, out), ErrNotRegular}
		case kind != "regular file" && kind != "regular empty file":
			return nil, hostFileError{fmt.Sprintf("on %s: %s is a %s, not a regular file", c.Host, name, kind), ErrNotRegular}
		}
		ids[i] = id
	}
	return ids, nil
}

// Program resolves a program to run on the host: a name without a slash
// is looked up on its PATH, and it and files (what the program will read)
// must be regular files there; either failure wraps ErrNotOnHost.
func (c *Conn) Program(ctx context.Context, program string, files ...string) (string, error) {
	if program != "" && !strings.Contains(program, "/") {
		p, err := c.LookPath(ctx, program)
		if err != nil {
			return "", err
		}
		program = p
	}
	if err := c.CheckFiles(ctx, append([]string{program}, files...)...); err != nil {
		return "", err
	}
	return program, nil
}

// ProcessExists reports whether pid is a process on the host (one the
// remote user may not signal exists too).
func (c *Conn) ProcessExists(ctx context.Context, pid int) (bool, error) {
	_, err := c.Run(ctx, []string{"kill", "-0", fmt.Sprint(pid)}, lookTimeout)
	var ee *ExitError
	if errors.As(err, &ee) {
		return !strings.Contains(ee.Stderr, "No such process"), nil
	}
	return err == nil, err
}

// Kill sends SIGKILL to pid on the host, bounded; a process already gone
// is no error.
func (c *Conn) Kill(ctx context.Context, pid int) error {
	err := c.Signal(ctx, pid, "KILL")
	if errors.Is(err, ErrNoProcess) {
		return nil
	}
	return err
}

// ErrNoProcess is a signal's target gone from the host.
var ErrNoProcess = errors.New("no such process")

// Signal sends the signal named sig (KILL, STOP, ...: kill(1)'s names) to
// pid on the host, bounded. A process gone is ErrNoProcess.
func (c *Conn) Signal(ctx context.Context, pid int, sig string) error {
	_, err := c.Run(ctx, []string{"kill", "-" + sig, fmt.Sprint(pid)}, lookTimeout)
	var ee *ExitError
	if errors.As(err, &ee) && strings.Contains(ee.Stderr, "No such process") {
		return fmt.Errorf("signal %s to pid %d on %s: %w", sig, pid, c.Host, ErrNoProcess)
	}
	return err
}
