package remote

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/textclip"
)

// maxRunOutput bounds what Run keeps of a command's output.
const maxRunOutput = 1 << 20

// ExitError is a remote command that ran and failed.
type ExitError struct {
	Host   string
	Argv   []string
	Status string // "exited with status 1"
	Stderr string
}

func (e *ExitError) Error() string {
	msg := fmt.Sprintf("on %s: %s: %s", e.Host, strings.Join(e.Argv, " "), e.Status)
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

// Run runs argv on the host through the connection, bounded by timeout,
// and returns its standard output. A command that fails is an *ExitError
// quoting its standard error; ssh's own failure (status 255 with the
// master gone) wraps ErrLost.
func (c *Conn) Run(ctx context.Context, argv []string, timeout time.Duration) (string, error) {
	return c.run(ctx, argv, timeout, maxRunOutput)
}

// run is Run keeping up to limit bytes of the output.
func (c *Conn) run(ctx context.Context, argv []string, timeout time.Duration, limit int) (string, error) {
	stdout, stderr := clipped{max: limit}, clipped{max: maxRunOutput}
	res, err := spawn.Run(ctx, spawn.Spec{Argv: c.Argv(argv), Timeout: timeout, Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		return "", fmt.Errorf("on %s: %w", c.Host, err)
	}
	switch {
	case res.Success():
		return stdout.String(), nil
	case res.TimedOut:
		return "", fmt.Errorf("on %s: %s: timed out after %s", c.Host, strings.Join(argv, " "), timeout)
	case res.Exited && res.ExitCode == 255 && !c.Alive():
		return "", fmt.Errorf("%w to %s while running %s", ErrLost, c.Host, strings.Join(argv, " "))
	}
	status := res.String()
	if res.Exited {
		status = fmt.Sprintf("exited with status %d", res.ExitCode)
	}
	return "", &ExitError{Host: c.Host, Argv: argv, Status: status, Stderr: textclip.String(strings.TrimSpace(stderr.String()), 1024)}
}

// clipped keeps the first max bytes written to it.
type clipped struct {
	strings.Builder
	max int
}

func (c *clipped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		c.Builder.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
