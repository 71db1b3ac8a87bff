package coverage

import (
	"strings"
	"testing"
)

// Each source line is marked as the run counted it: ran, did not run, or
// no code, whether between ranges or inside one.
func TestSourceLinesMarks(t *testing.T) {
	var c fileCounts
	for line, count := range map[int]int64{2: 1, 4: 3, 6: 0, 8: 0, 9: 2} {
		c.add(line, count)
	}
	f := fileOf(&c)
	var src strings.Builder
	for n := 1; n <= 10; n++ {
		src.WriteString("line " + string(rune('0'+n%10)) + "\n")
	}
	lines, total := f.SourceLines([]byte(src.String()), 2, 7)
	want := []string{
		"    2 + | line 2",
		"    3   | line 3", // inside the covered range 2-4: no code
		"    4 + | line 4",
		"    5   | line 5", // between ranges
		"    6 - | line 6",
		"    7   | line 7", // inside the uncovered range 6-8
		"    8 - | line 8",
	}
	if total != 10 || strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("%d lines:\n%s\nwant 10:\n%s", total, strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if lines, _ := f.SourceLines([]byte(src.String()), 10, 5); len(lines) != 1 {
		t.Errorf("from the last line: %q", lines)
	}
	long := strings.Repeat("x", maxSourceLine+50) + "\n\xff\n"
	if lines, total := f.SourceLines([]byte(long), 1, 5); total != 2 || len(lines[0]) > maxSourceLine+20 || !strings.Contains(lines[1], "\uFFFD") {
		t.Errorf("a long line and a bad byte: %d lines %q", total, lines)
	}
}
