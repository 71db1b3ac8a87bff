package coverage

import (
	"fmt"
	"reflect"
	"testing"
)

// asMap is lc's counts as maps, by file and line, for comparisons.
func (lc *lineCounts) asMap() map[string]map[int]int64 {
	m := map[string]map[int]int64{}
	for path, f := range lc.lines {
		m[path] = map[int]int64{}
		f.each(func(line int, count int64) { m[path][line] = count })
	}
	return m
}

// A file's counts add up by line whatever the order they come in, lines
// far out of range included, and are listed in line order.
func TestFileCounts(t *testing.T) {
	var f fileCounts
	for _, c := range []struct {
		line  int
		count int64
	}{{9, 1}, {3, 0}, {maxDenseLine + 5, 2}, {9, 4}, {0, 7}, {1, 0}, {3, 0}, {-2, 1}, {maxDenseLine, 0}} {
		f.add(c.line, c.count)
	}
	var lines []int
	var counts []int64
	f.each(func(line int, count int64) { lines, counts = append(lines, line), append(counts, count) })
	if want := []int{-2, 0, 1, 3, 9, maxDenseLine, maxDenseLine + 5}; !reflect.DeepEqual(lines, want) {
		t.Errorf("lines %v, want %v", lines, want)
	}
	if want := []int64{1, 7, 0, 0, 5, 0, 2}; !reflect.DeepEqual(counts, want) {
		t.Errorf("counts %v, want %v", counts, want)
	}
}

// Lines fold into runs of covered and of uncovered lines; the lines no
// count names (blank, comments) do not break a run.
func TestFileOfFoldsRuns(t *testing.T) {
	var f fileCounts
	for line, count := range map[int]int64{2: 1, 3: 4, 6: 2, 7: 0, 8: 0, 12: 0, 13: 3, 20: 1} {
		f.add(line, count)
	}
	got := fileOf(&f)
	if got.Lines != 8 || got.Covered != 5 {
		t.Errorf("%d of %d lines covered, want 5 of 8", got.Covered, got.Lines)
	}
	if want := []Range{{2, 6}, {13, 20}}; !reflect.DeepEqual(got.CoveredRanges, want) {
		t.Errorf("covered %v, want %v", got.CoveredRanges, want)
	}
	if want := []Range{{7, 12}}; !reflect.DeepEqual(got.Uncovered, want) {
		t.Errorf("uncovered %v, want %v", got.Uncovered, want)
	}
	if want := []Range{{4, 5}, {9, 11}, {14, 19}}; !reflect.DeepEqual(got.NoCode, want) {
		t.Errorf("no code %v, want %v (the lines inside the ranges nothing counts)", got.NoCode, want)
	}
	if empty := fileOf(&fileCounts{}); empty.Lines != 0 || empty.CoveredRanges != nil || empty.Uncovered != nil {
		t.Errorf("a file without counted lines: %+v", empty)
	}
}

// BenchmarkLineCountsReport gathers the counts of 30 files of 2,000
// counted lines each, in the order a tool lists them, and makes the
// report: what every coverage run does once its data is read.
func BenchmarkLineCountsReport(b *testing.B) {
	dir := b.TempDir()
	c := newClassifier(dir, nil)
	for b.Loop() {
		lc := newLineCounts()
		for f := range 30 {
			path := fmt.Sprintf("%s/pkg%d/file.c", dir, f)
			for line := 1; line <= 2000; line++ {
				lc.add(path, line*2, int64(line%3))
			}
		}
		if r := lc.report(ToolGcov, c); len(r.Files) != 30 {
			b.Fatalf("%d files", len(r.Files))
		}
	}
}
