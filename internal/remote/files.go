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

// notOnHost is an error matching ErrNotOnHost whose text is msg alone.
type notOnHost string

func (e notOnHost) Error() string        { return string(e) }
func (e notOnHost) Is(target error) bool { return target == ErrNotOnHost }

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
		return "", notOnHost(msg)
	}
	if err != nil {
		return "", err
	}
	path, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(path, "/") { // a shell builtin or function: no program
		return "", notOnHost(fmt.Sprintf("on %s: %s is no program there (%s)", c.Host, strings.Join(names, " or "), path))
	}
	return path, nil
}

// CheckFiles fails unless every path names a regular file on the host
// (links followed), quoting the host's stat for one that does not exist
// (wrapping ErrNotOnHost) and naming what one that is no file is.
func (c *Conn) CheckFiles(ctx context.Context, paths ...string) error {
	out, err := c.Run(ctx, append([]string{"stat", "-L", "-c", "%F|%n", "--"}, paths...), lookTimeout)
	var ee *ExitError
	if errors.As(err, &ee) {
		return notOnHost(fmt.Sprintf("on %s: %s", c.Host, ee.Stderr))
	}
	if err != nil {
		return err
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		kind, name, ok := strings.Cut(l, "|")
		if !ok {
			return fmt.Errorf("on %s: unexpected stat output %q (a GNU stat is needed)", c.Host, out)
		}
		if kind != "regular file" && kind != "regular empty file" {
			return fmt.Errorf("on %s: %s is a %s, not a regular file", c.Host, name, kind)
		}
	}
	return nil
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
	_, err := c.Run(ctx, []string{"kill", "-KILL", fmt.Sprint(pid)}, lookTimeout)
	var ee *ExitError
	if errors.As(err, &ee) && strings.Contains(ee.Stderr, "No such process") {
		return nil
	}
	return err
}
