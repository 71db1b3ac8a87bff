package coverage

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestMinus(t *testing.T) {
	for _, tt := range []struct{ a, b, want []Range }{
		{[]Range{{1, 10}}, nil, []Range{{1, 10}}},
		{[]Range{{1, 10}}, []Range{{1, 10}}, nil},
		{[]Range{{1, 10}}, []Range{{3, 4}, {6, 6}}, []Range{{1, 2}, {5, 5}, {7, 10}}},
		{[]Range{{1, 3}, {8, 12}}, []Range{{2, 9}}, []Range{{1, 1}, {10, 12}}},
		{[]Range{{5, 6}}, []Range{{1, 2}, {9, 9}}, []Range{{5, 6}}},
		{[]Range{{1, 2}, {4, 5}, {7, 8}}, []Range{{0, 100}}, nil},
	} {
		if got := minus(tt.a, tt.b); !slices.Equal(got, tt.want) {
			t.Errorf("%v minus %v = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// stored writes a report of the files, as a run keeps it.
func stored(t *testing.T, files ...File) *bytes.Reader {
	t.Helper()
	r := &Report{Tool: ToolGcov, ProjectDir: "/p", Files: files}
	for i := range r.Files {
		for _, rs := range r.Files[i].CoveredRanges {
			r.Files[i].Covered += rs.To - rs.From + 1
		}
		r.Files[i].Lines = 20
	}
	r.count()
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(b.Bytes())
}

// A new run's report against an old one's: each file's newly covered and
// lost lines, files only one run counts, other kinds left out, a filter
// that names a file, and the bounds.
func TestCompare(t *testing.T) {
	old := func() *bytes.Reader {
		return stored(t,
			File{Path: "a.c", Kind: Own, CoveredRanges: []Range{{1, 5}}},
			File{Path: "b.c", Kind: Own, CoveredRanges: []Range{{1, 10}}},
			File{Path: "gone.c", Kind: Own, CoveredRanges: []Range{{2, 3}}},
			File{Path: "same.c", Kind: Own, CoveredRanges: []Range{{1, 1}}},
			File{Path: "vendor/v.c", Kind: Vendored})
	}
	new := func() *bytes.Reader {
		return stored(t,
			File{Path: "a.c", Kind: Own, CoveredRanges: []Range{{1, 9}, {12, 12}}},
			File{Path: "a.cpp", Kind: Own, CoveredRanges: []Range{{4, 4}}},
			File{Path: "b.c", Kind: Own, CoveredRanges: []Range{{1, 4}, {6, 10}}, Uncovered: []Range{{5, 5}}},
			File{Path: "same.c", Kind: Own, CoveredRanges: []Range{{1, 1}}},
			File{Path: "vendor/v.c", Kind: Vendored, CoveredRanges: []Range{{1, 9}}})
	}
	c, err := Compare(old(), new(), ".", 10)
	if err != nil {
		t.Fatal(err)
	}
	if c.Gained != 6 || c.Lost != 3 || c.Changed != 4 {
		t.Errorf("gained %d, lost %d, in %d files; want 6, 3, in 4 (a.c, a.cpp, b.c, gone.c)", c.Gained, c.Lost, c.Changed)
	}
	var b strings.Builder
	c.WriteText(&b, "o-1", 1)
	// 18 of 80 lines, then 21 of 80 (a.cpp new, gone.c not counted).
	want := "COVERAGE since o-1: 22.5% → 26.2% of lines; 6 lines newly covered, 3 lost, in 4 files\n" +
		"  a.c: +5 (6-9 … and 1 more)\n  a.cpp: +1 (4)\n  gone.c: -2 (2-3)\n  b.c: -1 (5)\n"
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
	c, err = Compare(old(), new(), "/p/a.c", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Files) != 1 || c.Files[0].Path != "a.c" || !slices.Equal(c.Files[0].Gained, []Range{{6, 9}, {12, 12}}) || c.Gained != 5 || c.Lost != 0 {
		t.Errorf("a.c alone: %+v", c)
	}
	c, _ = Compare(old(), new(), ".", 1)
	if len(c.Files) != 1 || c.Files[0].Path != "a.c" || c.Changed != 4 {
		t.Errorf("bounded to 1: %+v", c)
	}
}

// A new test runs two one-line functions with a comment between them, and
// blank lines around (xxhash's Size and BlockSize): the change is those
// two lines, not the comment, the blanks or the lines either run counts.
func TestCompareLeavesOutLinesWithoutCode(t *testing.T) {
	// Code on 60-66, 69, 72, 74-80; 67-68, 70-71 and 73 hold none.
	old := File{Path: "x.go", Kind: Own, Lines: 16, Covered: 14, CoveredRanges: []Range{{60, 66}, {74, 80}}, Uncovered: []Range{{69, 72}}}
	new := File{Path: "x.go", Kind: Own, Lines: 16, Covered: 16, CoveredRanges: []Range{{60, 80}}}
	c, err := Compare(storedAsIs(t, old), storedAsIs(t, new), ".", 10)
	if err != nil {
		t.Fatal(err)
	}
	if c.Gained != 2 || c.Lost != 0 || len(c.Files) != 1 || !slices.Equal(c.Files[0].Gained, []Range{{69, 72}}) {
		t.Errorf("gained %d (%+v), lost %d; want 2 lines, 69-72 (71 and 70 hold no code)", c.Gained, c.Files, c.Lost)
	}
	c, err = Compare(storedAsIs(t, new), storedAsIs(t, old), ".", 10)
	if err != nil {
		t.Fatal(err)
	}
	if c.Lost != 2 || c.Gained != 0 || !slices.Equal(c.Files[0].Lost, []Range{{69, 72}}) {
		t.Errorf("the other way: lost %d (%+v), gained %d; want 2, 69-72", c.Lost, c.Files, c.Gained)
	}
}

// With the code-less lines a report keeps, a change both ways is counted
// exactly too: a line gained and a line lost, a comment inside each range.
func TestCompareCountsCodeLinesBothWays(t *testing.T) {
	// Code on 1, 3, 5, 7; 2 and 6 are comments.
	old := File{Path: "x.c", Kind: Own, Lines: 4, Covered: 2, CoveredRanges: []Range{{1, 3}}, Uncovered: []Range{{5, 7}}, NoCode: []Range{{2, 2}, {6, 6}}}
	new := File{Path: "x.c", Kind: Own, Lines: 4, Covered: 2, CoveredRanges: []Range{{5, 7}}, Uncovered: []Range{{1, 3}}, NoCode: []Range{{2, 2}, {6, 6}}}
	c, err := Compare(storedAsIs(t, old), storedAsIs(t, new), ".", 10)
	if err != nil {
		t.Fatal(err)
	}
	if c.Gained != 2 || c.Lost != 2 {
		t.Errorf("gained %d, lost %d (%+v); want 2 and 2", c.Gained, c.Lost, c.Files)
	}
}

// storedAsIs writes a report of one file with its figures as given (stored
// sets each file's own).
func storedAsIs(t *testing.T, f File) *bytes.Reader {
	t.Helper()
	r := &Report{Tool: ToolGcov, ProjectDir: "/p", Files: []File{f}}
	r.count()
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(b.Bytes())
}
