package wire

import (
	"math"
	"strings"

	"github.com/triage-dev/triage/internal/coverage"
)

// Coverage is a coverage run's line coverage: the totals of the project's
// own files, the files a filter selects (least covered first), and on
// request one file's uncovered lines.
type Coverage struct {
	Tool              string          `json:"tool" jsonschema:"go, gcov, llvm-cov (cargo, clang, SwiftPM) or xccov (Xcode)"`
	Percent           float64         `json:"percent" jsonschema:"covered lines in percent, over the project's own files"`
	Lines             int             `json:"lines" jsonschema:"lines the toolchain counts"`
	Covered           int             `json:"covered" jsonschema:"lines run at least once"`
	StatementPercent  float64         `json:"statement_percent,omitempty" jsonschema:"go: covered statements in percent, the figure of go tool cover -func"`
	Statements        int             `json:"statements,omitempty" jsonschema:"go: statements"`
	CoveredStatements int             `json:"covered_statements,omitempty" jsonschema:"go: statements run"`
	Filter            string          `json:"filter,omitempty" jsonschema:"the path prefix that selected the files"`
	FilesMatched      int             `json:"files_matched" jsonschema:"the project's files selected, shown or not"`
	Files             []CoverageFile  `json:"files,omitempty" jsonschema:"files selected, least covered first (bounded)"`
	Apart             map[string]int  `json:"apart,omitempty" jsonschema:"files not counted, by kind: vendored, generated, toolchain, external"`
	File              *CoverageFile   `json:"file,omitempty" jsonschema:"the file asked for, with its uncovered line ranges"`
	Notes             []string        `json:"notes,omitempty" jsonschema:"what the figures leave out"`
	Error             string          `json:"error,omitempty" jsonschema:"why a coverage run has no coverage: what was tried, what to change"`
	FailedPath        string          `json:"failed_path,omitempty" jsonschema:"the lines the first failed test ran, rerun alone"`
	Change            *CoverageChange `json:"change,omitempty" jsonschema:"with since: the lines covered since the older run, and lost"`
}

// CoverageFile is one file's line coverage.
type CoverageFile struct {
	Path              string   `json:"path" jsonschema:"relative to the project for its files"`
	Kind              string   `json:"kind,omitempty" jsonschema:"own, vendored, generated, toolchain or external"`
	Percent           float64  `json:"percent" jsonschema:"covered lines in percent"`
	Lines             int      `json:"lines"`
	Covered           int      `json:"covered"`
	Statements        int      `json:"statements,omitempty"`
	CoveredStatements int      `json:"covered_statements,omitempty"`
	Uncovered         [][2]int `json:"uncovered,omitempty" jsonschema:"uncovered line ranges [from, to], 1-based"`
}

// percent1 rounds a percentage to one decimal, as go tool cover prints it.
func percent1(p float64) float64 { return math.Round(p*10) / 10 }

// CoverageOf converts a coverage summary; nil for none.
func CoverageOf(s *coverage.Summary) *Coverage {
	if s == nil {
		return nil
	}
	r := s.Report
	c := &Coverage{
		Tool: r.Tool, Percent: percent1(r.Totals.Percent()), Lines: r.Totals.Lines, Covered: r.Totals.Covered,
		Statements: r.Totals.Statements, CoveredStatements: r.Totals.CoveredStatements,
		Filter: s.Filter, FilesMatched: s.Matched, Notes: r.Notes,
	}
	if r.FailedPath != nil {
		var b strings.Builder
		r.FailedPath.WriteText(&b, s.MaxFuncs)
		c.FailedPath = strings.TrimSuffix(b.String(), "\n")
	} else if r.PathError != "" {
		c.FailedPath = "none: " + r.PathError
	}
	if r.Totals.Statements > 0 {
		c.StatementPercent = percent1(r.Totals.StatementPercent())
	}
	for i := range r.Files {
		c.Files = append(c.Files, *CoverageFileOf(&r.Files[i], 0))
	}
	for k, n := range r.Apart {
		if c.Apart == nil {
			c.Apart = map[string]int{}
		}
		c.Apart[string(k)] = n.Files
	}
	return c
}

// CoverageFileOf converts one file, with at most maxRanges of its
// uncovered ranges (0: none).
func CoverageFileOf(f *coverage.File, maxRanges int) *CoverageFile {
	cf := &CoverageFile{
		Path: f.Path, Percent: percent1(f.Percent()), Lines: f.Lines, Covered: f.Covered,
		Statements: f.Statements, CoveredStatements: f.CoveredStatements,
	}
	if f.Kind != coverage.Own {
		cf.Kind = string(f.Kind)
	}
	for _, r := range f.Uncovered[:min(maxRanges, len(f.Uncovered))] {
		cf.Uncovered = append(cf.Uncovered, [2]int{r.From, r.To})
	}
	return cf
}

// CoverageChange is a run's coverage against an older run's.
type CoverageChange struct {
	Since        string               `json:"since" jsonschema:"the older run"`
	Gained       int                  `json:"gained" jsonschema:"lines newly covered"`
	Lost         int                  `json:"lost" jsonschema:"lines no longer covered"`
	FilesChanged int                  `json:"files_changed"`
	Files        []CoverageFileChange `json:"files,omitempty" jsonschema:"most gained first (bounded)"`
}

// CoverageFileChange is one file's lines gained and lost, as [from, to].
type CoverageFileChange struct {
	Path   string   `json:"path"`
	Gained [][2]int `json:"gained,omitempty"`
	Lost   [][2]int `json:"lost,omitempty"`
}

// CoverageChangeOf converts a comparison, the new run's totals with it,
// with at most maxRanges ranges of each kind per file.
func CoverageChangeOf(c *coverage.Comparison, tool, since string, maxRanges int) *Coverage {
	w := &CoverageChange{Since: since, Gained: c.Gained, Lost: c.Lost, FilesChanged: c.Changed}
	pairs := func(rs []coverage.Range) [][2]int {
		var out [][2]int
		for _, r := range rs[:min(maxRanges, len(rs))] {
			out = append(out, [2]int{r.From, r.To})
		}
		return out
	}
	for _, f := range c.Files {
		w.Files = append(w.Files, CoverageFileChange{Path: f.Path, Gained: pairs(f.Gained), Lost: pairs(f.Lost)})
	}
	return &Coverage{Tool: tool, Percent: percent1(c.New.Percent()), Lines: c.New.Lines, Covered: c.New.Covered, Filter: c.Filter, FilesMatched: c.Changed, Change: w}
}
