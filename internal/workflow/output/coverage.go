package output

import (
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// coverage answers output_get's coverage question on a stored test run
// (see coverage.Ask), or with since, the comparison with an older run.
func (h *handler) coverage(ctx context.Context, st *store.Store, in getParams) (catalog.Result[wire.Page], error) {
	switch {
	case in.Coverage == "" && in.Source:
		return catalog.Result[wire.Page]{}, fault.Usagef("source shows a file's lines as a coverage run marked them: give the file in coverage")
	case in.Coverage == "":
		return catalog.Result[wire.Page]{}, fault.Usagef("since compares coverage: give coverage too (a file, a path, or \".\")")
	case in.Since != "" && in.Source:
		return catalog.Result[wire.Page]{}, fault.Usagef("source marks one run's lines; since compares two: ask for one, then the other")
	case in.Since != "":
		return h.coverageSince(ctx, st, in)
	}
	f, err := st.OpenFile(ctx, in.OutputID, coverage.FileName)
	if err != nil {
		return catalog.Result[wire.Page]{}, err
	}
	defer f.Close()
	a, err := coverage.Ask(f, in.Coverage)
	if err != nil {
		return catalog.Result[wire.Page]{}, err
	}
	out := wire.Page{OutputID: in.OutputID, Lines: []string{}, Coverage: wire.CoverageOf(&a.Summary)}
	if a.File != nil {
		out.Coverage.File = wire.CoverageFileOf(a.File, coverage.MaxRanges)
	}
	if in.Source {
		return h.source(ctx, st, in, a, out)
	}
	return catalog.Result[wire.Page]{Text: coverageText(in, a), Output: out}, nil
}

// coverageText is a file's uncovered ranges, or the files under a path.
func coverageText(in getParams, a coverage.Answer) string {
	var b strings.Builder
	if a.File != nil {
		fmt.Fprintf(&b, "COVERAGE of %s (%s, run %s)\n", a.File.Path, a.Summary.Report.Tool, in.OutputID)
		a.File.WriteUncovered(&b, coverage.MaxRanges)
		return b.String()
	}
	a.Summary.WriteText(&b)
	if a.Summary.Matched == 0 {
		fmt.Fprintf(&b, "no file of run %s is %q or under it: paths are relative to the project (%s); \".\" lists every file\n", in.OutputID, in.Coverage, a.Summary.Report.ProjectDir)
	}
	return b.String()
}

// coverageSince answers output_get's coverage question with since: what
// the run covers that the older run did not, and what it lost, per file
// of the path asked for (see coverage.AskSince).
func (h *handler) coverageSince(ctx context.Context, st *store.Store, in getParams) (catalog.Result[wire.Page], error) {
	old, err := st.OpenFile(ctx, in.Since, coverage.FileName)
	if err != nil {
		return catalog.Result[wire.Page]{}, err
	}
	defer old.Close()
	cur, err := st.OpenFile(ctx, in.OutputID, coverage.FileName)
	if err != nil {
		return catalog.Result[wire.Page]{}, err
	}
	defer cur.Close()
	c, ranges, err := coverage.AskSince(old, cur, in.Coverage)
	if err != nil {
		return catalog.Result[wire.Page]{}, err
	}
	var b strings.Builder
	c.WriteText(&b, in.Since, ranges)
	out := wire.Page{OutputID: in.OutputID, Lines: []string{}, Coverage: wire.CoverageChangeOf(c, c.Tool, in.Since, ranges)}
	return catalog.Result[wire.Page]{Text: b.String(), Output: out}, nil
}
