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

// Bounds of an xcode_test answer's coverage: the files listed, and the
// files whose lines are read from the result bundle's archive (one xccov
// call each), when the filter selects no more.
const (
	maxCoverageFiles = 30
	maxLineFiles     = 5
)

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
	s := coverage.Summarize(o.Coverage, filter, maxCoverageFiles)
	if s.Matched <= maxLineFiles {
		addLines(ctx, o, s.Report.Files)
		s = coverage.Summarize(o.Coverage, filter, maxCoverageFiles)
	}
	st, err := h.svc.Store(ctx)
	if err == nil {
		err = st.PutFile(ctx, id, coverage.FileName, o.Coverage.Write)
	}
	if err != nil {
		s.Report.Notes = append(s.Report.Notes, "the report could not be kept with the output: "+err.Error())
	}
	var b strings.Builder
	s.WriteText(&b)
	one := linesOfOne(o.Coverage, s)
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

// linesOfOne is the one file a summary selected, with its lines; nil when
// it selected several, or its lines were not read.
func linesOfOne(r *coverage.Report, s coverage.Summary) *coverage.File {
	if s.Matched != 1 {
		return nil
	}
	for i := range r.Files {
		if f := &r.Files[i]; f.Path == s.Report.Files[0].Path && (len(f.Uncovered) > 0 || len(f.CoveredRanges) > 0) {
			return f
		}
	}
	return nil
}

// addLines reads the lines of files, the ones a filter selected, from the
// run's result bundle into its report.
func addLines(ctx context.Context, o *xcode.BuildOutcome, files []coverage.File) {
	var abs []string
	for _, f := range files {
		p := filepath.FromSlash(f.Path)
		if !filepath.IsAbs(p) {
			p = filepath.Join(o.Coverage.ProjectDir, p)
		}
		abs = append(abs, p)
	}
	if len(abs) > 0 {
		xcode.AddCoverageLines(ctx, o.ResultBundle, o.Coverage, abs)
	}
}
