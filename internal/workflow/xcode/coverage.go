package xcode

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/workflow/wire"
	"github.com/triage-dev/triage/internal/xcode"
)

// maxCoverageFiles bounds the files an xcode_test answer lists.
const maxCoverageFiles = 30

// keepCoverage keeps a coverage run's report (xccov's, read by
// internal/xcode) with its output, where output_get finds it, and returns
// the answer's coverage section and structured part; none for a run
// without coverage. filter selects the files listed, a path relative to
// the project's directory or absolute.
func (h *handler) keepCoverage(ctx context.Context, id string, o *xcode.BuildOutcome, filter string) (string, *wire.Coverage) {
	if o.Coverage == nil {
		if o.CoverageError == "" {
			return "", nil
		}
		return "COVERAGE: none — " + o.CoverageError + "\n", &wire.Coverage{Error: o.CoverageError}
	}
	if filepath.IsAbs(filter) {
		if rel, err := filepath.Rel(o.Coverage.ProjectDir, filter); err == nil && !strings.HasPrefix(rel, "..") {
			filter = filepath.ToSlash(rel)
		}
	}
	s, one := o.SummarizeCoverage(ctx, filter, maxCoverageFiles)
	st, err := h.svc.Store(ctx)
	if err == nil {
		err = st.PutFile(ctx, id, coverage.FileName, o.Coverage.Write)
	}
	if err != nil {
		s.Report.Notes = append(s.Report.Notes, "the report could not be kept with the output: "+err.Error())
	}
	var b strings.Builder
	s.WriteText(&b)
	if one != nil {
		one.WriteUncovered(&b, coverage.MaxRanges)
	}
	b.WriteString("a file's figures, or other files: " + catalog.NextCall("output_get", map[string]any{"output_id": id, "coverage": "PATH"}) + "\n")
	c := wire.CoverageOf(&s)
	if one != nil {
		c.File = wire.CoverageFileOf(one, coverage.MaxRanges)
	}
	return b.String(), c
}
