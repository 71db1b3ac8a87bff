// Package output is the `output` workflow: page, search and list the outputs
// triage stored whole. Always on.
package output

import (
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// Workflow returns the output workflow bound to svc.
func Workflow(svc *services.Set) *catalog.Workflow {
	h := &handler{svc: svc}
	ro := catalog.Annotations{ReadOnly: true, Idempotent: true}
	return &catalog.Workflow{
		ID:          "output",
		Title:       "Stored outputs",
		Description: "Page, search and list the full outputs behind every excerpt.",
		AlwaysOn:    true,
		Tools: []*catalog.Tool{
			catalog.New("output_get", "Read lines of a stored output by offset (0-based) and limit.", ro, h.get),
			catalog.New("output_search", "RE2 search of one stored output or the recent ones, with context; lines numbered from 1.", ro, h.search),
			catalog.New("output_list", "List recent stored outputs with their tool, command and verdict.", ro, h.list),
		},
	}
}

type handler struct{ svc *services.Set }

type getParams struct {
	OutputID string `json:"output_id"`
	Offset   int    `json:"offset,omitempty" jsonschema:"first line"`
	Limit    int    `json:"limit,omitempty" jsonschema:"default 200"`
	Coverage string `json:"coverage,omitempty" jsonschema:"coverage of a file or path"`
	Since    string `json:"since,omitempty" jsonschema:"older run: lines gained, lost"`
}

// GetOutput is a page of lines.
type GetOutput struct {
	OutputID   string         `json:"output_id" jsonschema:"the output"`
	Offset     int            `json:"offset" jsonschema:"first line returned"`
	Lines      []string       `json:"lines" jsonschema:"the lines"`
	TotalLines int            `json:"total_lines" jsonschema:"lines in the output"`
	Complete   bool           `json:"complete" jsonschema:"the producer finished writing it"`
	Next       string         `json:"next,omitempty" jsonschema:"the call for the following lines"`
	Coverage   *wire.Coverage `json:"coverage,omitempty" jsonschema:"the coverage asked for"`
}

func (h *handler) get(ctx context.Context, c *catalog.Call, in getParams) (catalog.Result[GetOutput], error) {
	st, err := h.svc.Store(ctx)
	if err != nil {
		return catalog.Result[GetOutput]{}, err
	}
	switch {
	case in.Since != "" && in.Coverage == "":
		return catalog.Result[GetOutput]{}, fault.Usagef("since compares coverage: give coverage too (a file, a path, or \".\")")
	case in.Since != "":
		return h.coverageSince(ctx, st, in)
	case in.Coverage != "":
		return h.coverage(ctx, st, in)
	}
	if in.Offset < 0 || in.Limit < 0 {
		return catalog.Result[GetOutput]{}, fault.Usagef("offset and limit must be 0 or more")
	}
	// The store says which errors are the caller's (an unknown id, an offset
	// past the end); a failure to read is not.
	p, err := st.Page(ctx, in.OutputID, in.Offset, in.Limit)
	if err != nil {
		return catalog.Result[GetOutput]{}, err
	}
	// Keep within the response budget: drop lines from the end.
	budget, size := h.svc.Config.BudgetBytes(), 0
	for i, l := range p.Lines {
		size += len(l) + 8
		if size > budget && i > 0 {
			p.Lines = p.Lines[:i]
			break
		}
	}
	out := GetOutput{OutputID: in.OutputID, Offset: in.Offset, Lines: p.Lines, TotalLines: p.TotalLines, Complete: p.Entry.Complete}
	end := in.Offset + len(p.Lines)
	if end < p.TotalLines {
		out.Next = catalog.NextCall("output_get", map[string]any{"output_id": in.OutputID, "offset": end, "limit": max(in.Limit, 200)})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "OUTPUT %s: lines %d–%d of %d", in.OutputID, in.Offset+1, end, p.TotalLines)
	if p.Entry.VerdictLine != "" {
		fmt.Fprintf(&b, " — %s", p.Entry.VerdictLine)
	}
	if !p.Entry.Complete {
		fmt.Fprintf(&b, " (%s)", p.Entry.Status)
	}
	b.WriteByte('\n')
	for _, l := range p.Lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if out.Next != "" {
		fmt.Fprintf(&b, "more: %s\n", out.Next)
	}
	return catalog.Result[GetOutput]{Text: b.String(), Output: out}, nil
}

type searchParams struct {
	OutputID   string `json:"output_id,omitempty" jsonschema:"omit to search the recent outputs"`
	Pattern    string `json:"pattern" jsonschema:"RE2, per line, max 4 KB"`
	Context    int    `json:"context,omitempty" jsonschema:"lines around each match (max 20)"`
	MaxMatches int    `json:"max_matches,omitempty" jsonschema:"default 50, max 1000; all are counted"`
}

// SearchOutput holds the matches.
type SearchOutput struct {
	Pattern   string       `json:"pattern" jsonschema:"the pattern"`
	Matches   []wire.Match `json:"matches" jsonschema:"the matches shown, each line once (1-based line numbers)"`
	Total     int          `json:"total" jsonschema:"all matching lines, including those not returned"`
	Truncated bool         `json:"truncated" jsonschema:"more lines matched than were returned"`
	Searched  int          `json:"searched" jsonschema:"outputs searched"`
}

func (h *handler) search(ctx context.Context, c *catalog.Call, in searchParams) (catalog.Result[SearchOutput], error) {
	st, err := h.svc.Store(ctx)
	if err != nil {
		return catalog.Result[SearchOutput]{}, err
	}
	// The text and the structured matches are the same ones, within the
	// response budget: the store keeps no more than that.
	res, err := st.Search(ctx, store.Query{ID: in.OutputID, Pattern: in.Pattern, Context: in.Context, MaxMatches: in.MaxMatches, MaxBytes: h.svc.Config.BudgetBytes()})
	if err != nil {
		return catalog.Result[SearchOutput]{}, err
	}
	out := SearchOutput{Pattern: in.Pattern, Matches: append([]wire.Match{}, wire.MatchesOf(res.Matches)...), Total: res.Total, Truncated: res.Truncated, Searched: res.Searched}
	scope := "the recent outputs"
	if in.OutputID != "" {
		scope = in.OutputID
	}
	var b strings.Builder
	fmt.Fprintf(&b, "SEARCH %q in %s: %d matching lines", in.Pattern, scope, res.Total)
	if res.Truncated {
		fmt.Fprintf(&b, " (first %d shown; narrow the pattern or search one output, or page it with output_get)", len(res.Matches))
	}
	b.WriteByte('\n')
	writeMatches(&b, out.Matches)
	return catalog.Result[SearchOutput]{Text: b.String(), Output: out}, nil
}

// writeMatches prints matches as grep -n does with context: "id:line: text"
// for a match, "id:line- text" for context, "--" between groups of lines
// that do not follow each other.
func writeMatches(b *strings.Builder, ms []wire.Match) {
	last, lastID := 0, ""
	for _, m := range ms {
		first := m.Line - len(m.Before)
		if lastID != "" && (m.ID != lastID || first > last+1) {
			b.WriteString("--\n")
		}
		for j, l := range m.Before {
			fmt.Fprintf(b, "%s:%d- %s\n", m.ID, first+j, l)
		}
		fmt.Fprintf(b, "%s:%d: %s\n", m.ID, m.Line, m.Text)
		for j, l := range m.After {
			fmt.Fprintf(b, "%s:%d- %s\n", m.ID, m.Line+1+j, l)
		}
		last, lastID = m.Line+len(m.After), m.ID
	}
}

type listParams struct {
	Limit int `json:"limit,omitempty" jsonschema:"default 20"`
}

// ListOutput lists stored outputs.
type ListOutput struct {
	Outputs []wire.Output `json:"outputs" jsonschema:"recent outputs, newest first"`
}

func (h *handler) list(ctx context.Context, c *catalog.Call, in listParams) (catalog.Result[ListOutput], error) {
	st, err := h.svc.Store(ctx)
	if err != nil {
		return catalog.Result[ListOutput]{}, err
	}
	entries, err := st.List(ctx, in.Limit)
	if err != nil {
		return catalog.Result[ListOutput]{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "OUTPUTS: %d most recent\n", len(entries))
	for _, e := range entries {
		verdict := e.VerdictLine
		if verdict == "" {
			verdict = e.Status
		}
		fmt.Fprintf(&b, "%s  %s  %-14s %6d lines  %s  %s\n", e.ID, e.Created.Format("01-02 15:04:05"), e.Tool, e.Lines, strings.Join(e.Argv, " "), verdict)
	}
	return catalog.Result[ListOutput]{Text: b.String(), Output: ListOutput{Outputs: outputsOf(entries)}}, nil
}

// outputsOf is the wire form of stored-output entries, an empty list for none.
func outputsOf(es []store.Entry) []wire.Output {
	if len(es) == 0 {
		return []wire.Output{}
	}
	return wire.OutputsOf(es)
}
