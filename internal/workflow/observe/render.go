package observe

import (
	"strings"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/observe"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// Output is debug_observe's answer.
type Output struct {
	Verdict     wire.Verdict          `json:"verdict" jsonschema:"how the program ended, as run says"`
	DurationMS  int64                 `json:"duration_ms"`
	Tracepoints []wire.TracepointHits `json:"tracepoints,omitempty"`
	EventsID    string                `json:"events_id" jsonschema:"the JSONL event log: output_get, output_search"`
	Events      int                   `json:"events" jsonschema:"lines in the event log"`
	Backtrace   []wire.Frame          `json:"backtrace,omitempty" jsonschema:"crashing thread's frames"`
	CrashSite   *wire.CrashSite       `json:"crash_site,omitempty"`
	catalog.Captured
}

func renderReport(r *observe.Report, eventsID string, cr capture.Result) catalog.Result[Output] {
	out := Output{Verdict: wire.VerdictOf(r.Verdict), DurationMS: r.Result.Duration.Milliseconds(),
		EventsID: eventsID, Events: r.Events, Tracepoints: wire.TracepointsOf(r.Tracepoints),
		Captured: catalog.NewCaptured(cr.ID, cr.Excerpt.TotalLines, cr.Excerpt.Truncated), Backtrace: wire.FramesOf(r.Backtrace()), CrashSite: wire.CrashSiteOf(r.Site)}
	outcome := catalog.OK
	if !r.Verdict.OK() {
		outcome = catalog.Failed
	}
	return catalog.Result[Output]{Text: text(r, out, cr), Output: out, Outcome: outcome}
}

func text(r *observe.Report, out Output, cr capture.Result) string {
	var b strings.Builder
	r.WriteText(&b, out.EventsID)
	catalog.WriteExcerpt(&b, out.Captured, cr.Excerpt.Text)
	return b.String()
}
