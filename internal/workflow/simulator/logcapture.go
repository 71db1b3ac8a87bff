package simulator

import (
	"context"
	"fmt"
	"github.com/triage-dev/triage/internal/capture"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/xcode"
)

type logCaptureParams struct {
	apple.SimulatorArgs
	Action      string           `json:"action" jsonschema:"start or stop"`
	BundleID    string           `json:"bundle_id,omitempty" jsonschema:"start: the app whose log to capture"`
	ProcessName string           `json:"process_name,omitempty" jsonschema:"start: executable name (default: last bundle id component)"`
	MaxS        duration.Seconds `json:"max_s,omitempty" jsonschema:"start: capture limit, seconds (default 600, max 3600)"`
	CaptureID   string           `json:"capture_id,omitempty" jsonschema:"stop: the id start returned"`
}

// LogCaptureOutput describes a capture.
type LogCaptureOutput struct {
	CaptureID string   `json:"capture_id" jsonschema:"the capture (a background process id)"`
	Running   bool     `json:"running" jsonschema:"still capturing"`
	Tail      []string `json:"tail,omitempty" jsonschema:"stop: the last lines captured"`
	catalog.Captured
}

const (
	defaultCapture = 10 * time.Minute
	maxCapture     = time.Hour
	tailLines      = 40
)

func (h *handler) logCapture(ctx context.Context, c *catalog.Call, in logCaptureParams) (catalog.Result[LogCaptureOutput], error) {
	switch in.Action {
	case "start":
		return h.startCapture(ctx, in)
	case "stop":
		return h.stopCapture(ctx, in)
	}
	return catalog.Result[LogCaptureOutput]{}, fault.Usagef("action %q: use start or stop", in.Action)
}

func (h *handler) startCapture(ctx context.Context, in logCaptureParams) (catalog.Result[LogCaptureOutput], error) {
	var zero catalog.Result[LogCaptureOutput]
	if err := apple.UsageOf(xcode.CheckBundleID(in.BundleID)); err != nil {
		return zero, err
	}
	limit, err := in.MaxS.Duration("max_s", defaultCapture, maxCapture)
	if err != nil {
		return zero, err
	}
	process := in.ProcessName
	if process == "" {
		process = xcode.ProcessName(in.BundleID)
	}
	if strings.ContainsAny(process, "\"\\\n\x00") {
		return zero, fault.Usagef("process_name %q: quotes, backslashes and newlines are not allowed", process)
	}
	d, err := in.Resolve(ctx)
	if err != nil {
		return zero, err
	}
	jm, err := h.svc.Jobs(ctx)
	if err != nil {
		return zero, err
	}
	cmd := xcode.LogStreamCommand(d.UDID, in.BundleID, process)
	j, err := jm.Start(ctx, capture.Request{Spec: spawn.Spec{Argv: cmd.Argv, Timeout: limit}, Program: "log stream"})
	if err != nil {
		return zero, apple.UsageOf(err)
	}
	out := LogCaptureOutput{CaptureID: j.ID, Running: true, Captured: catalog.Captured{OutputID: j.OutputID}}
	text := fmt.Sprintf("CAPTURING the log of %s on %s for at most %s (capture %s, output %s)\nnext: %s\n",
		in.BundleID, name(d), limit, j.ID, j.OutputID,
		catalog.NextCall("sim_log_capture", map[string]any{"action": "stop", "capture_id": j.ID}))
	return catalog.Result[LogCaptureOutput]{Text: text, Output: out}, nil
}

func (h *handler) stopCapture(ctx context.Context, in logCaptureParams) (catalog.Result[LogCaptureOutput], error) {
	var zero catalog.Result[LogCaptureOutput]
	if in.CaptureID == "" {
		return zero, fault.Usagef("capture_id is required to stop: the id sim_log_capture start returned")
	}
	jm, err := h.svc.Jobs(ctx)
	if err != nil {
		return zero, err
	}
	j, err := jm.Stop(ctx, in.CaptureID, 0)
	if err != nil {
		return zero, fmt.Errorf("capture_id %q: %w", in.CaptureID, err)
	}
	st, err := h.svc.Store(ctx)
	if err != nil {
		return zero, err
	}
	info, err := st.Info(ctx, j.OutputID)
	if err != nil {
		return zero, err
	}
	page, err := st.Page(ctx, j.OutputID, max(0, info.Lines-tailLines), tailLines)
	if err != nil {
		return zero, err
	}
	out := LogCaptureOutput{CaptureID: j.ID, Tail: page.Lines, Captured: catalog.NewCaptured(j.OutputID, info.Lines, info.Lines > len(page.Lines))}
	var b strings.Builder
	fmt.Fprintf(&b, "CAPTURE STOPPED: %d log lines (%s)\n", info.Lines, j.OutputID)
	catalog.WriteExcerpt(&b, out.Captured, strings.Join(page.Lines, "\n"))
	return catalog.Result[LogCaptureOutput]{Text: b.String(), Output: out}, nil
}
