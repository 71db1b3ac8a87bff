// Package output is the `output` workflow: page, search and list the outputs
// triage stored whole. Always on.
package output

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/textclip"
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
			catalog.New("output_get", "Read a stored output's lines by offset (0-based) and limit.", ro, h.get),
			catalog.New("output_search", "RE2 search of one stored output or the recent ones, with context; lines numbered from 1.", ro, h.search).
				Unlisted("", "time_limit_s"), // seldom changed: not worth its tokens in every tools/list (at its budget)
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
	Source   bool   `json:"source,omitempty" jsonschema:"its source, + ran, - not"`
}

func (h *handler) get(ctx context.Context, c *catalog.Call, in getParams) (catalog.Result[wire.Page], error) {
	st, err := h.svc.Store(ctx)
	if err != nil {
		return catalog.Result[wire.Page]{}, err
	}
	if in.Coverage != "" || in.Since != "" || in.Source {
		return h.coverage(ctx, st, in)
	}
	p, err := st.PageWithin(ctx, in.OutputID, in.Offset, in.Limit, h.svc.Config.BudgetBytes())
	if err != nil {
		return catalog.Result[wire.Page]{}, err
	}
	out := wire.Page{OutputID: in.OutputID, Offset: in.Offset, Lines: p.Lines, TotalLines: p.TotalLines, Complete: p.Entry.Complete}
	if p.More {
		out.Next = catalog.NextCall("output_get", map[string]any{"output_id": in.OutputID, "offset": in.Offset + len(p.Lines), "limit": max(in.Limit, 200)})
	}
	return catalog.Result[wire.Page]{Text: pageText(in.OutputID, p, out.Next), Output: out}, nil
}

// pageText is a head line with the output's verdict or status, the lines,
// and the call for the following ones.
func pageText(id string, p store.Page, next string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "OUTPUT %s: lines %d–%d of %d", id, p.Offset+1, p.Offset+len(p.Lines), p.TotalLines)
	if p.Entry.VerdictLine != "" {
		fmt.Fprintf(&b, " — %s", p.Entry.VerdictLine)
	}
	if !p.Entry.Complete {
		fmt.Fprintf(&b, " (%s)", p.Entry.Status)
	}
	b.WriteByte('\n')
	for _, l := range p.Lines {
		b.WriteString(l + "\n")
	}
	if next != "" {
		fmt.Fprintf(&b, "more: %s\n", next)
	}
	return b.String()
}

type searchParams struct {
	OutputID   string  `json:"output_id,omitempty" jsonschema:"omit to search the recent outputs"`
	Pattern    string  `json:"pattern" jsonschema:"RE2, per line, max 4 KB"`
	Context    int     `json:"context,omitempty" jsonschema:"lines around each match (max 20)"`
	MaxMatches int     `json:"max_matches,omitempty" jsonschema:"default 50, max 1000; all are counted"`
	TimeLimitS float64 `json:"time_limit_s,omitempty" jsonschema:"seconds the search may take (default 30, at most 300); past it, the matches found so far"`
}

// maxSearchTime bounds time_limit_s: a costly pattern over a large
// output holds a core for as long as it is allowed.
const maxSearchTime = 300 * time.Second

func (h *handler) search(ctx context.Context, c *catalog.Call, in searchParams) (catalog.Result[wire.Search], error) {
	st, err := h.svc.Store(ctx)
	if err != nil {
		return catalog.Result[wire.Search]{}, err
	}
	// The text and the structured matches are the same ones, within the
	// response budget: the store keeps no more than that.
	limit := time.Duration(in.TimeLimitS * float64(time.Second))
	if in.TimeLimitS < 0 || limit > maxSearchTime {
		return catalog.Result[wire.Search]{}, fault.Usagef("time_limit_s %g: use 0 (the default, %g s) to %g seconds", in.TimeLimitS, store.DefaultSearchTime.Seconds(), maxSearchTime.Seconds())
	}
	res, err := st.Search(ctx, store.Query{ID: in.OutputID, Pattern: in.Pattern, Context: in.Context, MaxMatches: in.MaxMatches, MaxBytes: h.svc.Config.BudgetBytes(), TimeLimit: limit})
	if err != nil {
		return catalog.Result[wire.Search]{}, err
	}
	out := wire.Search{Pattern: in.Pattern, Matches: append([]wire.Match{}, wire.MatchesOf(res.Matches)...), Total: res.Total, Truncated: res.Truncated, Searched: res.Searched}
	named := c.Limit("time_limit_s", in.TimeLimitS > 0, "")
	named.Max = maxSearchTime
	return catalog.Result[wire.Search]{Text: searchText(in, res, named.Said(cmp.Or(limit, store.DefaultSearchTime))), Output: out}, nil
}

// searchText is a head line with the count, then the matches as grep -n;
// limit is the search's time limit in capture.Limit's words ("after 30s
// (…)"), for a search that ran out of it.
func searchText(in searchParams, res store.SearchResult, limit string) string {
	scope := "the recent outputs"
	if in.OutputID != "" {
		scope = in.OutputID
	}
	var b strings.Builder
	fmt.Fprintf(&b, "SEARCH %q in %s: %s", in.Pattern, scope, textclip.Count(res.Total, "matching line"))
	switch {
	case res.Stopped != "":
		fmt.Fprintf(&b, " before it stopped, %d shown: %s; the limit ran out %s", len(res.Matches), res.Stopped, limit)
	case res.Truncated:
		fmt.Fprintf(&b, " (first %d shown; narrow the pattern or search one output, or page it with output_get)", len(res.Matches))
	}
	b.WriteByte('\n')
	res.WriteMatches(&b)
	return b.String()
}

type listParams struct {
	Limit int `json:"limit,omitempty" jsonschema:"default 20"`
}

func (h *handler) list(ctx context.Context, c *catalog.Call, in listParams) (catalog.Result[wire.Outputs], error) {
	st, err := h.svc.Store(ctx)
	if err != nil {
		return catalog.Result[wire.Outputs]{}, err
	}
	entries, err := st.List(ctx, in.Limit)
	if err != nil {
		return catalog.Result[wire.Outputs]{}, err
	}
	text := fmt.Sprintf("OUTPUTS: %d most recent\n", len(entries))
	for _, e := range entries {
		text += e.Line() + "\n"
	}
	// An empty list for none, never null.
	return catalog.Result[wire.Outputs]{Text: text, Output: wire.Outputs{Outputs: append([]wire.Output{}, wire.OutputsOf(entries)...)}}, nil
}
