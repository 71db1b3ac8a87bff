package coverage

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Change is what one file's coverage gained and lost from one run to
// another: the lines the new run covers that the old did not (uncovered
// there, or not counted), and those the old covered that the new does not.
type Change struct {
	Path         string
	Gained, Lost []Range
	GainedLines  int
	LostLines    int
}

// Comparison is a new run's coverage against an old one's, over the
// project's own files a filter selects: every file's change counted, the
// files that changed listed, most lines gained first.
type Comparison struct {
	Tool        string // the new run's
	Old, New    Counts // the totals of each run, over all own files
	Filter      string
	Changed     int // files changed, listed or not
	Gained      int // lines gained over the files selected
	Lost        int
	Files       []Change
	ProjectDirs [2]string // old, new: a comparison of different projects says so
}

// Compare reads two stored reports, old then new, file by file in path
// order (see Write), and compares the own files the filter selects (a
// path prefix; "" or "." for all; a path that is a file's selects that
// file alone); at most limit changed files are kept.
func Compare(old, new io.Reader, filter string, limit int) (*Comparison, error) {
	so, sn := scanner(old), scanner(new)
	ro, err := readHeader(so)
	if err != nil {
		return nil, fmt.Errorf("the older run: %w", err)
	}
	rn, err := readHeader(sn)
	if err != nil {
		return nil, err
	}
	filter = rn.relative(filter)
	c := &Comparison{Tool: rn.Tool, Old: ro.Totals, New: rn.Totals, Filter: filter, ProjectDirs: [2]string{ro.ProjectDir, rn.ProjectDir}}
	fo, err := nextFile(so)
	if err != nil {
		return nil, err
	}
	fn, err := nextFile(sn)
	if err != nil {
		return nil, err
	}
	var changes []Change
	for fo != nil || fn != nil {
		var a, b *File
		switch {
		case fn == nil || fo != nil && fo.Path < fn.Path:
			a = fo
		case fo == nil || fn.Path < fo.Path:
			b = fn
		default:
			a, b = fo, fn
		}
		if ch, ok := changeOf(a, b, filter); ok {
			changes = append(changes, ch)
		}
		if a != nil {
			if fo, err = nextFile(so); err != nil {
				return nil, err
			}
		}
		if b != nil {
			if fn, err = nextFile(sn); err != nil {
				return nil, err
			}
		}
	}
	if i := slices.IndexFunc(changes, func(ch Change) bool { return ch.Path == filter }); i >= 0 {
		changes = changes[i : i+1]
	}
	c.tally(changes, limit)
	return c, nil
}

// tally counts the changes and keeps the first limit of those that
// changed, most gained first.
func (c *Comparison) tally(changes []Change, limit int) {
	changed := changes[:0]
	for _, ch := range changes {
		c.Gained += ch.GainedLines
		c.Lost += ch.LostLines
		if ch.GainedLines+ch.LostLines > 0 {
			changed = append(changed, ch)
		}
	}
	slices.SortStableFunc(changed, func(a, b Change) int {
		return cmp.Or(cmp.Compare(b.GainedLines, a.GainedLines), cmp.Compare(b.LostLines, a.LostLines))
	})
	c.Changed = len(changed)
	c.Files = changed[:min(limit, len(changed))]
}

// nextFile decodes a stored report's next file; nil at its end.
func nextFile(sc interface {
	Scan() bool
	Bytes() []byte
	Err() error
}) (*File, error) {
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("reading the stored coverage report: %w", err)
		}
		return nil, nil
	}
	var f File
	if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
		return nil, fmt.Errorf("the stored coverage report: %w", err)
	}
	return &f, nil
}

// changeOf compares a file of the old run with the same of the new (either
// nil when the run does not count it); false when the filter does not
// select it or it is not the project's own.
//
// A run's ranges span the lines between their counted ones that hold no
// code, and a line between two ranges holds none. So what one run covers
// and the other does not leaves out the other's holes (the same source has
// no code there), and the count is the difference of the counted figures
// where the change goes one way (the folded ranges would count blank and
// comment lines): exact for a test added, or code no longer run.
func changeOf(old, new *File, filter string) (Change, bool) {
	f := cmp.Or(new, old)
	if !selects(filter, f.Path) || (new == nil || new.Kind != Own) && (old == nil || old.Kind != Own) {
		return Change{}, false
	}
	var was, is []Range
	if old != nil {
		was = old.CoveredRanges
	}
	if new != nil {
		is = new.CoveredRanges
	}
	ch := Change{Path: f.Path, Gained: minus(minus(is, was), holes(old)), Lost: minus(minus(was, is), holes(new))}
	ch.GainedLines, ch.LostLines = lineCount(minus(ch.Gained, noCode(new))), lineCount(minus(ch.Lost, noCode(old)))
	switch {
	case old == nil || new == nil:
		ch.GainedLines, ch.LostLines = countedOf(new), countedOf(old)
	case len(ch.Lost) == 0 && new.Covered >= old.Covered:
		ch.GainedLines = min(ch.GainedLines, new.Covered-old.Covered)
	case len(ch.Gained) == 0 && old.Covered >= new.Covered:
		ch.LostLines = min(ch.LostLines, old.Covered-new.Covered)
	}
	return ch, true
}

// noCode is the code-less lines a file's ranges span (none for a report
// kept before they were).
func noCode(f *File) []Range {
	if f == nil {
		return nil
	}
	return f.NoCode
}

// countedOf is a file's covered lines; 0 for none.
func countedOf(f *File) int {
	if f == nil {
		return 0
	}
	return f.Covered
}

// holes are the lines between a file's ranges (covered and not): no code.
func holes(f *File) []Range {
	if f == nil {
		return nil
	}
	all := slices.SortedFunc(slices.Values(slices.Concat(f.CoveredRanges, f.Uncovered)), func(a, b Range) int { return cmp.Compare(a.From, b.From) })
	var out []Range
	for i := 1; i < len(all); i++ {
		if all[i].From > all[i-1].To+1 {
			out = append(out, Range{all[i-1].To + 1, all[i].From - 1})
		}
	}
	return out
}

// minus is the lines of a that b lacks, both sorted and disjoint.
func minus(a, b []Range) []Range {
	var out []Range
	j := 0
	for _, r := range a {
		from := r.From
		for ; j < len(b) && b[j].To < from; j++ {
		}
		for k := j; k < len(b) && b[k].From <= r.To && from <= r.To; k++ {
			if b[k].From > from {
				out = append(out, Range{from, b[k].From - 1})
			}
			from = max(from, b[k].To+1)
		}
		if from <= r.To {
			out = append(out, Range{from, r.To})
		}
	}
	return out
}

func lineCount(rs []Range) int {
	n := 0
	for _, r := range rs {
		n += r.To - r.From + 1
	}
	return n
}

// WriteText writes the comparison for a reader: the totals of both runs,
// the lines gained and lost, then each changed file with its first
// maxRanges ranges of each.
//
//	COVERAGE since o-1: 50.0% → 62.5% of lines; 10 lines newly covered, 0 lost, in 1 file
//	  lib.c: +10 (5-9, 12-16)
func (c *Comparison) WriteText(b *strings.Builder, since string, maxRanges int) {
	fmt.Fprintf(b, "COVERAGE since %s: %.1f%% → %.1f%% of lines; %d lines newly covered, %d lost", since, c.Old.Percent(), c.New.Percent(), c.Gained, c.Lost)
	if c.Filter != "" && c.Filter != "." {
		fmt.Fprintf(b, " under %q", c.Filter)
	}
	fmt.Fprintf(b, ", in %d files\n", c.Changed)
	if c.ProjectDirs[0] != c.ProjectDirs[1] {
		fmt.Fprintf(b, "  - the runs are of different projects: %s, then %s\n", c.ProjectDirs[0], c.ProjectDirs[1])
	}
	for _, ch := range c.Files {
		fmt.Fprintf(b, "  %s:", ch.Path)
		if ch.GainedLines > 0 {
			fmt.Fprintf(b, " +%d (%s)", ch.GainedLines, boundedRanges(ch.Gained, maxRanges))
		}
		if ch.LostLines > 0 {
			fmt.Fprintf(b, " -%d (%s)", ch.LostLines, boundedRanges(ch.Lost, maxRanges))
		}
		b.WriteByte('\n')
	}
	if more := c.Changed - len(c.Files); more > 0 {
		fmt.Fprintf(b, "  … %d more files\n", more)
	}
}

// boundedRanges is "5-9, 12" for the first maxRanges ranges, then how many
// more.
func boundedRanges(rs []Range, maxRanges int) string {
	var b strings.Builder
	for i, r := range rs[:min(maxRanges, len(rs))] {
		if i > 0 {
			b.WriteString(", ")
		}
		if r.From == r.To {
			fmt.Fprintf(&b, "%d", r.From)
		} else {
			fmt.Fprintf(&b, "%d-%d", r.From, r.To)
		}
	}
	if more := len(rs) - maxRanges; more > 0 {
		fmt.Fprintf(&b, " … and %d more", more)
	}
	return b.String()
}
