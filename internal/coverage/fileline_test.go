package coverage

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// A stored file line is encoding/json's own bytes for the file, whatever
// it holds: the reader and older reports rely on that form.
func TestFileLineMatchesEncodingJSON(t *testing.T) {
	files := []File{
		{},
		{Path: "a.c", Kind: Own, Lines: 3, Covered: 1, NoCode: []Range{{2, 2}}},
		{Path: "src/x.go", Kind: Vendored, Lines: 10, Covered: 10, Statements: 4, CoveredStatements: 4,
			Uncovered: []Range{}, CoveredRanges: []Range{{1, 10}}},
		{Path: `dir with "quotes"\and\backslash.c`, Kind: Generated, Uncovered: []Range{{-1, 0}, {5, 1 << 40}}},
		{Path: "<html>&amp;.h", Kind: External, Funcs: []Func{{Name: "operator<<", From: 1, To: 2}, {Name: "ok", From: 3, To: 4}}},
		{Path: "ünïcode/ファイル.c", Kind: Toolchain, Funcs: []Func{{Name: "f\u2028g\x01", From: 0, To: 0}}},
		{Path: "bad\xffutf8.c\x7f", Kind: Own, Lines: -1},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		files = append(files, randomFile(rng))
	}
	for _, f := range files {
		want, err := json.Marshal(&f)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		if got := appendFileLine(nil, &f); !bytes.Equal(got, want) {
			t.Errorf("file %+v:\n got %s\nwant %s", f, got, want)
		}
	}
}

func randomFile(rng *rand.Rand) File {
	word := func() string {
		const chars = "abc/._-é\"\\<\n"
		var sb strings.Builder
		for range rng.IntN(12) {
			sb.WriteString(string([]rune(chars)[rng.IntN(len([]rune(chars)))]))
		}
		return sb.String()
	}
	ranges := func() []Range {
		if rng.IntN(3) == 0 {
			return nil
		}
		rs := make([]Range, rng.IntN(5))
		for i := range rs {
			rs[i] = Range{rng.IntN(1000), rng.IntN(1000)}
		}
		return rs
	}
	f := File{Path: word(), Kind: Kind(word()), Lines: rng.IntN(3) * rng.IntN(500), Covered: rng.IntN(100),
		Statements: rng.IntN(2) * rng.IntN(50), CoveredStatements: rng.IntN(2) * rng.IntN(50),
		Uncovered: ranges(), CoveredRanges: ranges(), NoCode: ranges()}
	for range rng.IntN(3) {
		f.Funcs = append(f.Funcs, Func{Name: word(), From: rng.IntN(100), To: rng.IntN(100)})
	}
	return f
}

// BenchmarkReportWrite writes a report of 1,000 files of 40 ranges each.
func BenchmarkReportWrite(b *testing.B) {
	r := &Report{Tool: ToolGcov}
	for i := range 1000 {
		f := File{Path: "src/dir/file" + strings.Repeat("x", i%7) + ".c", Kind: Own, Lines: 400, Covered: 200}
		for j := range 20 {
			f.Uncovered = append(f.Uncovered, Range{j * 20, j*20 + 9})
			f.CoveredRanges = append(f.CoveredRanges, Range{j*20 + 10, j*20 + 19})
		}
		f.Funcs = []Func{{Name: "fn", From: 1, To: 400}}
		r.Files = append(r.Files, f)
	}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := r.Write(&buf); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}
