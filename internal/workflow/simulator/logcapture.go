package simulator

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/textclip"
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
	process, err := xcode.CheckLogStream(in.BundleID, in.ProcessName)
	if err != nil {
		return zero, apple.UsageOf(err)
	}
	limit, err := in.MaxS.Duration("max_s", defaultCapture, maxCapture)
	if err != nil {
		return zero, err
	}
	d, err := in.Resolve(ctx)
	if err != nil {
		return zero, err
	}
	jm, err := h.svc.Jobs(ctx)
	if err != nil {
		return zero, err
	}
	j, err := xcode.StartLogCapture(ctx, jm, d.UDID, in.BundleID, process, limit)
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
	if in.CaptureID == "" {
		return catalog.Result[LogCaptureOutput]{}, fault.Usagef("capture_id is required to stop: the id sim_log_capture start returned")
	}
	jm, err := h.svc.Jobs(ctx)
	if err != nil {
		return catalog.Result[LogCaptureOutput]{}, err
	}
	st, err := h.svc.Store(ctx)
	if err != nil {
		return catalog.Result[LogCaptureOutput]{}, err
	}
	t, err := xcode.StopLogCapture(ctx, jm, st, in.CaptureID, tailLines)
	if err != nil {
		return catalog.Result[LogCaptureOutput]{}, err
	}
	out := LogCaptureOutput{CaptureID: t.Job.ID, Tail: t.Tail, Captured: catalog.NewCaptured(t.Job.OutputID, t.Lines, t.Lines > len(t.Tail))}
	var b strings.Builder
	fmt.Fprintf(&b, "CAPTURE STOPPED: %s (%s)\n", textclip.Count(t.Lines, "log line"), t.Job.OutputID)
	catalog.WriteExcerpt(&b, out.Captured, strings.Join(t.Tail, "\n"))
	return catalog.Result[LogCaptureOutput]{Text: b.String(), Output: out}, nil
}
