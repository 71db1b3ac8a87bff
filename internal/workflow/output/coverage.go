package output

import (
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// Bounds of a coverage answer: files listed, a file's ranges.
const (
	maxListedFiles = 100
	maxRanges      = 400
	maxPathFuncs   = 500 // of the failed test's path
	// A comparison's: files listed, and ranges of each kind per file.
	maxChangedFiles = 50
	maxChangeRanges = 20
)

// coverage answers output_get's coverage question on a stored test run:
// the file of that path with its uncovered line ranges, else the files
// under that path prefix, least covered first.
func (h *handler) coverage(ctx context.Context, st *store.Store, in getParams) (catalog.Result[GetOutput], error) {
	var zero catalog.Result[GetOutput]
	f, err := st.OpenFile(ctx, in.OutputID, coverage.FileName)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return zero, err
	}
	file, rep, err := coverage.FindFile(f, info.Size(), in.Coverage)
	if err != nil {
		return zero, err
	}
	out := GetOutput{OutputID: in.OutputID, Lines: []string{}}
	var b strings.Builder
	if file != nil {
		s := coverage.Summarize(rep, "", 0)
		out.Coverage = wire.CoverageOf(&s)
		out.Coverage.File = wire.CoverageFileOf(file, maxRanges)
		fmt.Fprintf(&b, "COVERAGE of %s (%s, run %s)\n", file.Path, rep.Tool, in.OutputID)
		file.WriteUncovered(&b, maxRanges)
		return catalog.Result[GetOutput]{Text: b.String(), Output: out}, nil
	}
	if _, err := f.Seek(0, 0); err != nil {
		return zero, err
	}
	s, err := coverage.ReadSummary(f, in.Coverage, maxListedFiles)
	if err != nil {
		return zero, err
	}
	s.MaxFuncs = maxPathFuncs
	out.Coverage = wire.CoverageOf(&s)
	s.WriteText(&b)
	if s.Matched == 0 {
		fmt.Fprintf(&b, "no file of run %s is %q or under it: paths are relative to the project (%s); \".\" lists every file\n", in.OutputID, in.Coverage, rep.ProjectDir)
	}
	return catalog.Result[GetOutput]{Text: b.String(), Output: out}, nil
}

// coverageSince answers output_get's coverage question with since: what
// the run covers that the older run did not, and what it lost, per file
// of the path asked for (see coverage.Compare).
func (h *handler) coverageSince(ctx context.Context, st *store.Store, in getParams) (catalog.Result[GetOutput], error) {
	var zero catalog.Result[GetOutput]
	old, err := st.OpenFile(ctx, in.Since, coverage.FileName)
	if err != nil {
		return zero, err
	}
	defer old.Close()
	cur, err := st.OpenFile(ctx, in.OutputID, coverage.FileName)
	if err != nil {
		return zero, err
	}
	defer cur.Close()
	ranges := maxChangeRanges
	c, err := coverage.Compare(old, cur, in.Coverage, maxChangedFiles)
	if err != nil {
		return zero, err
	}
	if len(c.Files) == 1 && c.Files[0].Path == c.Filter {
		ranges = maxRanges // one file asked for: its ranges
	}
	var b strings.Builder
	c.WriteText(&b, in.Since, ranges)
	out := GetOutput{OutputID: in.OutputID, Lines: []string{}, Coverage: wire.CoverageChangeOf(c, c.Tool, in.Since, ranges)}
	return catalog.Result[GetOutput]{Text: b.String(), Output: out}, nil
}
