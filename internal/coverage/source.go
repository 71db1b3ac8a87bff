package coverage

import (
	"bytes"
	"fmt"
	"sort"
)

// Line marks of a file's source as a run saw it.
const (
	MarkRan    = '+' // counted, and it ran
	MarkNotRun = '-' // counted, and it did not run
	MarkNoCode = ' ' // no code: blank, a comment, or a line the tool gave nothing for
)

// maxSourceLine bounds one source line shown.
const maxSourceLine = 300

// Mark is what the run said of line n of the file: MarkRan, MarkNotRun or
// MarkNoCode. A line inside a range that holds no code (NoCode), or
// between ranges, is MarkNoCode; a report stored before NoCode was kept
// marks such a line inside a range as the range.
func (f *File) Mark(n int) byte {
	switch {
	case inRanges(f.NoCode, n):
		return MarkNoCode
	case inRanges(f.CoveredRanges, n):
		return MarkRan
	case inRanges(f.Uncovered, n):
		return MarkNotRun
	}
	return MarkNoCode
}

func inRanges(rs []Range, n int) bool {
	i := sort.Search(len(rs), func(i int) bool { return rs[i].To >= n })
	return i < len(rs) && rs[i].From <= n
}

// SourceLines marks lines first.. of src (1-based), at most limit of them,
// each as "  63 + | text" (text cut at maxSourceLine bytes), and returns
// them with the number of lines src has.
func (f *File) SourceLines(src []byte, first, limit int) (lines []string, total int) {
	all := bytes.SplitAfter(src, []byte("\n"))
	if n := len(all); n > 0 && len(all[n-1]) == 0 {
		all = all[:n-1] // the newline that ends the file starts no line
	}
	total = len(all)
	for n := max(first, 1); n <= total && len(lines) < limit; n++ {
		text := bytes.TrimRight(all[n-1], "\r\n")
		if len(text) > maxSourceLine {
			text = append(text[:maxSourceLine:maxSourceLine], "…"...)
		}
		lines = append(lines, fmt.Sprintf("%5d %c | %s", n, f.Mark(n), bytes.ToValidUTF8(text, []byte("\uFFFD"))))
	}
	return lines, total
}
