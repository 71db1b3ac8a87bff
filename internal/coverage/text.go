package coverage

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// WriteText writes the summary for a reader: the totals, then each file
// shown, least covered first, then what is not counted.
//
//	COVERAGE (go): 72.5% of lines (145 of 200) in 12 files; 70.1% of statements (61 of 87)
//	   20.0%  calc/parse.go (2 of 10 lines)
func (s Summary) WriteText(b *strings.Builder) {
	r := s.Report
	t := r.Totals
	if t.Lines == 0 { // not 100% of nothing
		fmt.Fprintf(b, "COVERAGE (%s): no line of the project's own counted (%d files)", r.Tool, t.Files)
	} else {
		fmt.Fprintf(b, "COVERAGE (%s): %.1f%% of lines (%d of %d) in %d files", r.Tool, t.Percent(), t.Covered, t.Lines, t.Files)
	}
	if t.Statements > 0 {
		fmt.Fprintf(b, "; %.1f%% of statements (%d of %d)", t.StatementPercent(), t.CoveredStatements, t.Statements)
	}
	b.WriteByte('\n')
	what := "files"
	if s.Filter != "" && s.Filter != "." {
		what = fmt.Sprintf("files under %q", s.Filter)
	}
	if len(r.Files) > 0 {
		fmt.Fprintf(b, "%s, least covered first:\n", what)
	} else {
		fmt.Fprintf(b, "no %s\n", what)
	}
	for i := range r.Files {
		f := &r.Files[i]
		fmt.Fprintf(b, "  %5.1f%%  %s (%d of %d lines)\n", f.Percent(), f.Path, f.Covered, f.Lines)
	}
	if more := s.Matched - len(r.Files); more > 0 {
		fmt.Fprintf(b, "  … %d more\n", more)
	}
	if len(r.Apart) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(r.Apart)) {
			parts = append(parts, fmt.Sprintf("%d %s", r.Apart[k].Files, k))
		}
		fmt.Fprintf(b, "not counted: %s files\n", strings.Join(parts, ", "))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(b, "  - %s\n", n)
	}
	switch {
	case r.FailedPath != nil:
		r.FailedPath.WriteText(b, s.MaxFuncs)
	case r.PathError != "":
		b.WriteString("the failing test's path: none — " + r.PathError + "\n")
	}
}

// WriteUncovered writes a file's coverage and its first maxRanges
// uncovered line ranges: "calc.go: 66.7% of lines (4 of 6); uncovered
// lines: 5-6, 10".
func (f *File) WriteUncovered(b *strings.Builder, maxRanges int) {
	fmt.Fprintf(b, "%s: %.1f%% of lines (%d of %d)", f.Path, f.Percent(), f.Covered, f.Lines)
	if f.Statements > 0 {
		fmt.Fprintf(b, ", %d of %d statements", f.CoveredStatements, f.Statements)
	}
	if f.Kind != Own {
		fmt.Fprintf(b, " [%s, not counted]", f.Kind)
	}
	switch {
	case len(f.Uncovered) == 0 && f.Covered < f.Lines:
		// xccov's report gives a file's figures without its lines.
		b.WriteString("; which lines did not run is not known: the report gives no lines of this file\n")
		return
	case len(f.Uncovered) == 0:
		b.WriteString("; every counted line ran\n")
		return
	}
	b.WriteString("; uncovered lines: ")
	for i, r := range f.Uncovered[:min(maxRanges, len(f.Uncovered))] {
		if i > 0 {
			b.WriteString(", ")
		}
		if r.From == r.To {
			fmt.Fprintf(b, "%d", r.From)
		} else {
			fmt.Fprintf(b, "%d-%d", r.From, r.To)
		}
	}
	if more := len(f.Uncovered) - maxRanges; more > 0 {
		fmt.Fprintf(b, " … and %d more ranges", more)
	}
	b.WriteByte('\n')
}
