package xcode

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/background"
	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/store"
)

// CheckLogStream checks the app whose log is to be streamed and its
// process name, and returns the name (ProcessName's when empty).
func CheckLogStream(bundleID, process string) (string, error) {
	if err := CheckBundleID(bundleID); err != nil {
		return "", err
	}
	if process == "" {
		process = ProcessName(bundleID)
	}
	if strings.ContainsAny(process, "\"\\\n\x00") {
		return "", fault.Usagef("process_name %q: quotes, backslashes and newlines are not allowed", process)
	}
	return process, nil
}

// StartLogCapture streams the unified log of an app on simulator udid into
// a background job for at most limit. A stream waits for lines by design:
// its stacks, at a stop or a timeout, would say nothing (NoHangStacks).
func StartLogCapture(ctx context.Context, jobs *background.Manager, udid, bundleID, process string, limit time.Duration) (*background.Job, error) {
	cmd := LogStreamCommand(udid, bundleID, process)
	return jobs.Start(ctx, capture.Request{Spec: spawn.Spec{Argv: cmd.Argv, Timeout: limit}, Program: "log stream",
		NoHangStacks: true})
}

// LogTail is a stopped log capture: its job, how many lines it captured
// and the last of them.
type LogTail struct {
	Job   *background.Job
	Lines int
	Tail  []string
}

// StopLogCapture stops the capture id and reads its last tail lines.
func StopLogCapture(ctx context.Context, jobs *background.Manager, st *store.Store, id string, tail int) (LogTail, error) {
	j, err := jobs.Stop(ctx, id, 0)
	if err != nil {
		return LogTail{}, fmt.Errorf("capture_id %q: %w", id, err)
	}
	info, err := st.Info(ctx, j.OutputID)
	if err != nil {
		return LogTail{}, err
	}
	page, err := st.Page(ctx, j.OutputID, max(0, info.Lines-tail), tail)
	return LogTail{Job: j, Lines: info.Lines, Tail: page.Lines}, err
}
