package excerpt

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func isErr(l []byte) bool { return bytes.Contains(l, []byte("error:")) }

func TestShortOutputIsWhole(t *testing.T) {
	b := New(1024, isErr)
	b.Write([]byte("a\nb\nc"))
	b.Flush()
	e := b.Excerpt()
	if e.Text != "a\nb\nc\n" || e.Truncated || e.TotalLines != 3 {
		t.Errorf("excerpt = %+v", e)
	}
}

func TestErrorsFirstThenHeadAndTail(t *testing.T) {
	for _, budget := range []int{MinBudget, 2048, 8192} {
		b := New(budget, isErr)
		for i := 0; i < 100000; i++ {
			if i == 50000 || i == 70000 {
				fmt.Fprintf(b, "src/x.c:%d: error: boom %d\n", i, i)
				continue
			}
			fmt.Fprintf(b, "progress line %d\n", i)
		}
		e := b.Excerpt()
		if !e.Truncated || e.TotalLines != 100000 || e.Important != 2 {
			t.Fatalf("budget %d: excerpt meta = %+v", budget, e)
		}
		if len(e.Text) > budget {
			t.Errorf("budget %d: excerpt is %d bytes", budget, len(e.Text))
		}
		iErr := strings.Index(e.Text, "50001: src/x.c:50000: e") // cut short under small budgets
		iHead := strings.Index(e.Text, "progress line 0\n")
		iGap := strings.Index(e.Text, "lines omitted")
		iTail := strings.LastIndex(e.Text, "progress line 99")
		if iErr < 0 || iHead < 0 || iGap < 0 || iTail < 0 || !(iErr < iHead && iHead < iGap && iGap < iTail) {
			t.Errorf("budget %d: order wrong (err %d head %d gap %d tail %d):\n%s", budget, iErr, iHead, iGap, iTail, e.Text)
		}
		if budget >= 2048 && !strings.Contains(e.Text, "70001: src/x.c:70000: error: boom 70000\n") {
			t.Errorf("budget %d: second error line missing:\n%s", budget, e.Text)
		}
	}
}

func TestHostileInput(t *testing.T) {
	tests := map[string][]byte{
		"empty":           nil,
		"one 10 MB line":  bytes.Repeat([]byte("x"), 10<<20),
		"only errors":     bytes.Repeat([]byte("error: e\n"), 10000),
		"binary":          bytes.Repeat([]byte{0xff, 0xfe, 0, '\n', 0xc3}, 5000),
		"multibyte split": bytes.Repeat([]byte("日本語のエラー"), 1000),
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			b := New(MinBudget, isErr)
			b.Write(in)
			b.Flush()
			e := b.Excerpt()
			if len(e.Text) > MinBudget {
				t.Errorf("excerpt %d bytes", len(e.Text))
			}
			if !utf8.ValidString(e.Text) {
				t.Error("excerpt is not valid UTF-8")
			}
		})
	}
}

func TestLongLineCutOnRuneBoundary(t *testing.T) {
	b := New(1<<20, nil)
	line := strings.Repeat("x", MaxLine-1) + "日本" // the cut falls inside 日
	b.Add([]byte(line))
	got := b.Excerpt().Text
	want := strings.Repeat("x", MaxLine-1) + fmt.Sprintf("…[+%d bytes]", len(line)-(MaxLine-1)) + "\n"
	if got != want {
		t.Errorf("got %q…, want %q…", got[MaxLine-5:], want[MaxLine-5:])
	}
}

func BenchmarkStream(b *testing.B) {
	lines := make([][]byte, 1000)
	for i := range lines {
		lines[i] = []byte(fmt.Sprintf("[%d/1000] Compiling src/file_%d.c -o obj/file_%d.o", i, i, i))
	}
	b.ReportAllocs()
	var n int64
	for _, l := range lines {
		n += int64(len(l) + 1)
	}
	b.SetBytes(n)
	bl := New(8192, isErr)
	for b.Loop() {
		for _, l := range lines {
			bl.Add(l)
		}
	}
}

// FuzzBuilder: whatever the input, the excerpt is valid UTF-8, within the
// budget, and counts every line.
func FuzzBuilder(f *testing.F) {
	f.Add([]byte("a\nb\nerror: x\n"), 300)
	f.Add(bytes.Repeat([]byte("日本\xff\n"), 500), 256)
	f.Fuzz(func(t *testing.T, in []byte, budget int) {
		if budget < 0 || budget > 1<<16 {
			return
		}
		b := New(budget, isErr)
		b.Write(in)
		b.Flush()
		e := b.Excerpt()
		if !utf8.ValidString(e.Text) {
			t.Fatal("invalid UTF-8")
		}
		want := bytes.Count(in, []byte{'\n'})
		if len(in) > 0 && in[len(in)-1] != '\n' {
			want++
		}
		if e.TotalLines != want {
			t.Fatalf("TotalLines %d, want %d", e.TotalLines, want)
		}
		if len(e.Text) > max(budget, MinBudget) {
			t.Fatalf("excerpt %d bytes for budget %d", len(e.Text), budget)
		}
	})
}

// TestBudgetIsHard feeds outputs built to defeat the accounting: invalid
// bytes between ASCII ones (each becomes a 3-byte U+FFFD), long lines cut
// with markers, important lines with long line numbers, lines split across
// writes, and checks the size for budgets from the minimum up.
func TestBudgetIsHard(t *testing.T) {
	hostile := map[string]func(w *Builder){
		"alternating invalid bytes": func(w *Builder) {
			for range 3000 {
				w.Write(bytes.Repeat([]byte("a\xff"), 300))
				w.Write([]byte("\n"))
			}
		},
		"long important lines": func(w *Builder) {
			for i := range 200000 {
				if i%3 == 0 {
					fmt.Fprintf(w, "error: %s\n", strings.Repeat("é", 1000))
				} else {
					fmt.Fprintf(w, "%d\n", i)
				}
			}
		},
		"one line in tiny writes": func(w *Builder) {
			for range 100000 {
				w.Write([]byte("日本"))
			}
		},
		"many empty lines": func(w *Builder) {
			w.Write(bytes.Repeat([]byte("\n"), 1<<20))
		},
	}
	for name, feed := range hostile {
		for _, budget := range []int{0, MinBudget, 300, 1500, 8192, 100000} {
			b := New(budget, isErr)
			feed(b)
			b.Flush()
			e := b.Excerpt()
			if len(e.Text) > max(budget, MinBudget) || !utf8.ValidString(e.Text) {
				t.Errorf("%s, budget %d: %d bytes, valid UTF-8 %v", name, budget, len(e.Text), utf8.ValidString(e.Text))
			}
			if !e.Truncated || e.TotalLines == 0 {
				t.Errorf("%s, budget %d: %+v", name, budget, e)
			}
		}
	}
}

// TestLongLineThroughWrite: a 10 MB line written in pieces is cut with a
// marker that counts every byte left out.
func TestLongLineThroughWrite(t *testing.T) {
	b := New(8192, nil)
	piece := bytes.Repeat([]byte("x"), 1<<16)
	for range 160 {
		b.Write(piece)
	}
	b.Write([]byte("\nshort\n"))
	e := b.Excerpt()
	want := strings.Repeat("x", MaxLine) + fmt.Sprintf("…[+%d bytes]\nshort\n", 160<<16-MaxLine)
	if e.Text != want || e.TotalLines != 2 || !e.Truncated {
		t.Errorf("excerpt = %q…, %d lines, truncated %v", e.Text[max(0, len(e.Text)-40):], e.TotalLines, e.Truncated)
	}
}
