package run

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/scratch"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// maxCoverageFiles bounds the files a test answer lists.
const maxCoverageFiles = 30

// coverageDir gives a coverage run a directory of triage's own for the data
// it names (Go's profile); the function returned removes it.
func (r *planRequest) coverageDir() (func(), error) {
	if !r.options.Coverage {
		return func() {}, nil
	}
	d, err := scratch.Dir("", "cover")
	if err != nil {
		return nil, err
	}
	r.options.CoverageDir = d.Path
	return func() { d.Remove() }, nil
}

// coverageFilter is the path prefix the answer lists files under, relative
// to the project ("." for every file).
func (r planRequest) coverageFilter() string {
	f := r.coverage
	if filepath.IsAbs(f) {
		if rel, err := filepath.Rel(r.projectDir, f); err == nil && !strings.HasPrefix(rel, "..") {
			f = filepath.ToSlash(rel)
		}
	}
	return f
}

// keepCoverage keeps a coverage run's report with its output and
// summarises it for the answer; nil for a run without coverage.
func keepCoverage(ctx context.Context, st *store.Store, id string, res *pipeline.Result, filter string) (*coverage.Summary, *wire.Coverage) {
	if res.Coverage == nil {
		if res.CoverageError == "" {
			return nil, nil
		}
		return nil, &wire.Coverage{Error: res.CoverageError}
	}
	s := coverage.Summarize(res.Coverage, filter, maxCoverageFiles)
	if err := st.PutFile(ctx, id, coverage.FileName, res.Coverage.Write); err != nil {
		s.Report.Notes = append(s.Report.Notes, "the report could not be kept with the output: "+err.Error())
	}
	return &s, wire.CoverageOf(&s)
}

// writeCoverage writes a coverage run's section of the answer.
func writeCoverage(b *strings.Builder, s *coverage.Summary, c *wire.Coverage, id string) {
	switch {
	case c == nil:
	case c.Error != "":
		b.WriteString("COVERAGE: none — " + c.Error + "\n")
	default:
		s.WriteText(b)
		b.WriteString("a file's uncovered lines, or other files: " + catalog.NextCall("output_get", map[string]any{"output_id": id, "coverage": "PATH"}) + "\n")
	}
}
