package run

import (
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/excerpt"
	"github.com/triage-dev/triage/internal/hang"
	"github.com/triage-dev/triage/internal/verdict"
)

// renderText is what a run's answer says: the verdict line, how the
// program ended, what the output and the core showed, the next calls, and
// the excerpt of the output.
func renderText(o *capture.Outcome, stuck *hang.Report, c catalog.Captured, ex excerpt.Excerpt) string {
	var b strings.Builder
	b.WriteString(o.Verdict.Line)
	b.WriteByte('\n')
	o.Memcheck.WriteText(&b) // the cause, when a rerun found it, before the symptom
	o.WriteEnding(&b)
	o.Verdict.WriteIndicators(&b)
	o.Verdict.WriteEvidence(&b)
	o.Trace.WriteText(&b)
	o.Site.WriteText(&b)
	if stuck != nil {
		stuck.WriteStuck(&b)
	}
	writeHints(&b, o.Verdict.Hints)
	catalog.WriteExcerpt(&b, c, ex.Text)
	return b.String()
}

func writeHints(b *strings.Builder, hints []verdict.Hint) {
	if len(hints) == 0 {
		return
	}
	b.WriteString("next:\n")
	for _, h := range hints {
		if h.Tool != "" {
			fmt.Fprintf(b, "  - %s: %s\n", h.Text, catalog.NextCall(h.Tool, h.Args))
		} else {
			fmt.Fprintf(b, "  - %s\n", h.Text)
		}
	}
}
