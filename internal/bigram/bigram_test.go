package bigram

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNeverMissesALiteral: a line holding a literal always passes, wherever
// in the line it is (odd and even offsets, across the filter's rounds) and
// whichever pair anchors it; with every literal three bytes or more (even
// offsets checked) and with a two-byte one (every offset).
func TestNeverMissesALiteral(t *testing.T) {
	long := []string{"crashed", "panic: ", "*** ", "hs_err_pid", "Fatal error", "\xff\xfe\xfd", "abc"}
	for _, lits := range [][]string{long, append(long, "ld")} {
		f := New(lits)
		if f.aligned != (len(lits) == len(long)) {
			t.Fatalf("%q: aligned = %v", lits, f.aligned)
		}
		for _, lit := range lits {
			for pre := 0; pre <= 33; pre++ {
				for post := 0; post <= 17; post++ {
					line := strings.Repeat("-", pre) + lit + strings.Repeat("+", post)
					if !f.Maybe([]byte(line)) {
						t.Fatalf("%q: passed over, holding %q (aligned %v)", line, lit, f.aligned)
					}
				}
			}
		}
	}
}

// TestRulesOutLinesWithoutAnchors: the point of the filter, on the lines
// the capture benchmark prints and on blank and short lines.
func TestRulesOutLinesWithoutAnchors(t *testing.T) {
	f := New([]string{"crashed", "panic: ", "Segmentation fault", "error: "})
	for _, line := range []string{
		"", "c", "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstu",
		"ok  \tgithub.com/x/y\t0.012s", strings.Repeat("=", 300),
	} {
		if f.Maybe([]byte(line)) {
			t.Errorf("%q passed, holding no anchor", line)
		}
	}
}

func TestShortLiteralPassesEverything(t *testing.T) {
	f := New([]string{"panic: ", "a"})
	for _, line := range []string{"", "x", "zzz"} {
		if !f.Maybe([]byte(line)) {
			t.Errorf("%q ruled out, though a one-byte literal cannot be anchored on a pair", line)
		}
	}
	var zero Filter
	if !zero.Maybe([]byte("x")) {
		t.Error("the zero Filter ruled a line out")
	}
}

// TestAgreesWithContains: on random literals and lines over a small
// alphabet (so that literals occur, overlap and nearly occur), whenever
// strings.Contains finds a literal, Maybe passes the line.
func TestAgreesWithContains(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "ab: \xff"
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	for n := range 4000 {
		minLen := 2 + n%2 // every other set takes the even-offset scan
		lits := make([]string, 1+r.IntN(4))
		for i := range lits {
			lits[i] = word(minLen + r.IntN(5))
		}
		f := New(lits)
		for range 20 {
			line := word(r.IntN(60))
			for _, l := range lits {
				if strings.Contains(line, l) && !f.Maybe([]byte(line)) {
					t.Fatalf("literals %q: %q holds %q but was ruled out", lits, line, l)
				}
			}
		}
	}
}

func FuzzMaybe(f *testing.F) {
	f.Add("crashed", "process crashed with signal 11")
	f.Add("Fatal error", "xxxxxxxFatal error")
	f.Fuzz(func(t *testing.T, lit, line string) {
		if len(lit) < 2 {
			return
		}
		fl := New([]string{lit, "panic: "})
		if strings.Contains(line, lit) && !fl.Maybe([]byte(line)) {
			t.Fatalf("%q holds %q but was ruled out", line, lit)
		}
	})
}

func BenchmarkMaybe(b *testing.B) {
	f := New([]string{"crashed", "panic: ", "Segmentation fault", "error: "})
	line := []byte(strings.Repeat("abcdefghijklmnopqrstuvwxyz", 4)[:99])
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		f.Maybe(line)
	}
}
