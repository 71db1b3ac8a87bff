package dump

import (
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/postmortem/analysis"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

type reportParams struct {
	sessionParam
	Force bool `json:"force,omitempty" jsonschema:"bypass the cache"`
}

func (h *handler) report(ctx context.Context, c *catalog.Call, in reportParams) (catalog.Result[wire.DumpReport], error) {
	call, err := h.call(ctx, c, in.SessionID, in.Force, 0)
	if err != nil {
		return catalog.Result[wire.DumpReport]{}, err
	}
	r, err := h.analyst.Report(ctx, call)
	if err != nil {
		return catalog.Result[wire.DumpReport]{}, analysis.Classify(err)
	}
	out := wire.DumpReportOf(call.Session.ID, r, next(call.Session, r))
	// A dump records a crash: the CLI exits non-zero, like run on a crasher.
	return catalog.Result[wire.DumpReport]{Text: reportText(out, r.Output.Excerpt), Output: out, Outcome: catalog.Failed}, nil
}

// reportText is the verdict line, then the stored report's excerpt.
func reportText(out wire.DumpReport, excerpt string) string {
	var b strings.Builder
	b.WriteString(out.Verdict + "\n")
	if out.Truncated {
		catalog.WriteExcerpt(&b, out.Captured, excerpt)
		writeNext(&b, out.Next)
		return b.String()
	}
	// The verdict is the first line already.
	_, body, _ := strings.Cut(excerpt, "\n")
	b.WriteString(body)
	fmt.Fprintf(&b, "report stored as %s\n", out.OutputID)
	writeNext(&b, out.Next)
	return b.String()
}

// next are the dump_command calls that usually follow report r of s.
func next(s *postmortem.Session, r analysis.Report) []wire.Hint {
	var hints []wire.Hint
	for _, st := range analysis.NextSteps(r, s.Router.DefaultEngine()) {
		hints = append(hints, wire.Hint{Text: st.Why, Tool: "dump_command", Args: map[string]any{"session_id": s.ID, "command": st.Command}})
	}
	return hints
}

// writeNext lists the calls that usually come next.
func writeNext(b *strings.Builder, next []wire.Hint) {
	if len(next) == 0 {
		return
	}
	b.WriteString("next:\n")
	for _, h := range next {
		fmt.Fprintf(b, "  - %s: %s\n", h.Text, catalog.NextCall(h.Tool, h.Args))
	}
}
