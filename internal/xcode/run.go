// Running Apple developer tools: what the xcode and simulator workflows
// share. Run runs a short command (xcodebuild -list, simctl, xcresulttool)
// through internal/spawn with its output captured; FindSimulator resolves a
// simulator by name; Build runs an xcodebuild action through pipeline;
// Correlate matches the crash reports ReportCrash wrote during a run with
// the processes that run involved.

package xcode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// CommandTimeout bounds the short commands Run runs when the caller's
// context has no deadline.
const CommandTimeout = 2 * time.Minute

// maxOutput bounds the stdout of a short command kept in memory (a
// -showBuildSettings of a large workspace is a few MB).
const maxOutput = 64 << 20

// CommandError reports a command that did not succeed.
type CommandError struct {
	Argv   []string
	Result *spawn.Result
	// Stderr is the end of what the command printed on stderr (bounded).
	Stderr string
	// Limit, when set, names the time limit of a command that timed out
	// and how to raise it (capture.Limit's words).
	Limit string
}

func (e *CommandError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = "no message"
	}
	how := e.Result.String()
	if e.Result.TimedOut {
		how = fmt.Sprintf("timed out after %s", e.Result.Timeout)
		if e.Limit != "" {
			how += " (" + e.Limit + ")"
		}
	}
	return fmt.Sprintf("%s %s: %s: %s", e.Argv[0], strings.Join(e.Argv[1:min(len(e.Argv), 3)], " "), how, msg)
}

// Run runs a short command and returns its stdout. A command that could
// not start returns the *spawn.StartError; one that failed, a
// *CommandError.
func Run(ctx context.Context, cmd Command, timeout time.Duration) ([]byte, error) {
	if timeout <= 0 {
		timeout = CommandTimeout
	}
	stdout := &limitedBuffer{max: maxOutput}
	stderr := &limitedBuffer{max: 16 << 10, keepTail: true}
	res, err := spawn.Run(ctx, spawn.Spec{Argv: cmd.Argv, Env: cmd.Env, Timeout: timeout, Stdout: stdout, Stderr: stderr})
	if err != nil {
		return nil, err
	}
	if !res.Success() {
		return stdout.Bytes(), &CommandError{Argv: cmd.Argv, Result: res, Stderr: stderr.String()}
	}
	if stdout.over {
		return nil, fmt.Errorf("%s: output over %d bytes", strings.Join(cmd.Argv[:min(len(cmd.Argv), 3)], " "), maxOutput)
	}
	return stdout.Bytes(), nil
}

// limitedBuffer keeps the first (or, with keepTail, the last) max bytes.
type limitedBuffer struct {
	bytes.Buffer
	max      int
	keepTail bool
	over     bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if b.keepTail {
		b.Buffer.Write(p)
		if extra := b.Len() - b.max; extra > 0 {
			b.Next(extra)
		}
		return n, nil
	}
	if room := b.max - b.Len(); len(p) > room {
		p, b.over = p[:max(room, 0)], true
	}
	b.Buffer.Write(p)
	return n, nil
}

// IsStartError reports whether err says the command could not be started
// (the tool is missing).
func IsStartError(err error) bool {
	var se *spawn.StartError
	return errors.As(err, &se)
}
