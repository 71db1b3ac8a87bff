package coredump

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// maxToolOutput bounds what we keep of a helper tool's output (gdb, lldb,
// coredumpctl); a first-look backtrace is far smaller.
const maxToolOutput = 4 << 20

// capBuffer keeps the first max bytes written and drops the rest.
type capBuffer struct {
	buf       bytes.Buffer
	max       int
	truncated bool
}

func (c *capBuffer) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room < len(p) {
		c.truncated = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}

// toolRun is the captured result of running a helper tool.
type toolRun struct {
	stdout, stderr string
	res            *spawn.Result
}

// runTool runs argv through internal/spawn with a timeout and returns its
// output. A start failure (tool missing) is returned as the error; a
// non-zero exit is not an error here, callers read res.
func runTool(ctx context.Context, argv []string, timeout time.Duration) (*toolRun, error) {
	out := &capBuffer{max: maxToolOutput}
	errOut := &capBuffer{max: 64 << 10}
	res, err := spawn.Run(ctx, spawn.Spec{Argv: argv, Timeout: timeout, Stdout: out, Stderr: errOut})
	if err != nil {
		return nil, fmt.Errorf("running %s: %w", argv[0], err)
	}
	return &toolRun{stdout: out.buf.String(), stderr: errOut.buf.String(), res: res}, nil
}

// haveTool reports whether name is on PATH.
func haveTool(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}
