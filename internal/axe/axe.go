// Package axe drives AXe, the `axe` command-line tool for iOS simulator UI
// automation: the argv of each command triage uses (describe-ui, tap,
// touch, swipe, type, key, button, gesture, screenshot), their runs
// through spawn with bounded output, the describe-ui JSON read into a
// compact, bounded element tree, and finding an element by label or id
// (with the nearest labels when none matches). AXe runs on macOS only, where
// the simulators are.
package axe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/textclip"
)

// Tool is the program's name, looked up on PATH.
const Tool = "axe"

// Timeout bounds one axe command: every one triage runs is a single UI
// step or a tree read.
const Timeout = 2 * time.Minute

const (
	maxStdout = 16 << 20 // describe-ui of a busy screen is a few MB at most
	maxStderr = 8 << 10  // quoted in errors: AXe's messages are a few lines
)

// errMissing is the one text for axe absent from PATH.
const errMissing = "axe not found on PATH: the UI tools drive simulators through AXe (MIT); install it (brew install cameroncooke/axe/axe) and restart the server"

// Available reports why AXe cannot run here: not macOS, or no axe on PATH.
func Available() error { return available(runtime.GOOS, exec.LookPath) }

// OnPath reports whether axe is on PATH, whatever the system (tests run
// the fake on Linux).
func OnPath() error { return available("darwin", exec.LookPath) }

func available(goos string, lookPath func(string) (string, error)) error {
	if goos != "darwin" {
		return fault.Unavailablef("UI automation drives iOS simulators through AXe, on macOS only (this is %s/%s)", goos, runtime.GOARCH)
	}
	if _, err := lookPath(Tool); err != nil {
		return fault.Unavailablef("%s", errMissing)
	}
	return nil
}

// Error is a failed axe command, with its stderr kept (bounded).
type Error struct {
	Argv   []string
	Status string // "exit status 64"
	Stderr string
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = "(no output on stderr)"
	}
	return fmt.Sprintf("axe %s failed (%s):\n%s", subcommand(e.Argv), e.Status, msg)
}

func subcommand(argv []string) string {
	if len(argv) > 1 {
		return argv[1]
	}
	return ""
}

// Run runs one axe command line and returns its stdout. A failure is an
// *Error quoting stderr; axe missing is an unavailable fault.
func Run(ctx context.Context, argv []string) ([]byte, error) {
	stdout := &capped{max: maxStdout}
	stderr := &capped{max: maxStderr}
	res, err := spawn.Run(ctx, spawn.Spec{Argv: argv, Timeout: Timeout, Stdout: stdout, Stderr: stderr})
	var se *spawn.StartError
	if errors.As(err, &se) && se.Kind == spawn.KindNotFound {
		return nil, fault.Unavailablef("%s", errMissing)
	}
	if err != nil {
		return nil, err
	}
	if !res.Success() {
		return nil, &Error{Argv: argv, Status: status(res), Stderr: stderr.text()}
	}
	if stdout.over {
		return nil, fmt.Errorf("axe %s: output over %d bytes", subcommand(argv), maxStdout)
	}
	return stdout.Bytes(), nil
}

func status(r *spawn.Result) string {
	switch {
	case r.TimedOut:
		return fmt.Sprintf("timed out after %s", r.Timeout)
	case r.Cancelled:
		return "cancelled"
	case r.Signaled:
		return "killed by " + r.SignalName
	}
	return fmt.Sprintf("exit status %d", r.ExitCode)
}

// capped keeps the first max bytes written and notes more.
type capped struct {
	bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room < len(p) {
		c.over = true
		c.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.Buffer.Write(p)
}

func (c *capped) text() string {
	s := textclip.Prefix(c.String(), c.max)
	if c.over {
		s += "\n… (stderr cut at 8 KiB)"
	}
	return s
}
