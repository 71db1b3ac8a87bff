package run

import (
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// coverageOf is a coverage run's line coverage, or why there is none; nil
// for a run without coverage.
func coverageOf(d *pipeline.Called) *wire.Coverage {
	if d.Coverage != nil {
		return wire.CoverageOf(d.Coverage)
	}
	if e := d.Result.CoverageError; e != "" {
		return &wire.Coverage{Error: e}
	}
	return nil
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
