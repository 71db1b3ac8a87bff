package logfilter

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzMarker is an error line inserted into fuzzed logs: whatever surrounds
// it, every level must keep it.
const fuzzMarker = "src/fuzz_marker.c:12:5: error: use of undeclared identifier 'q7f3a'"

// FuzzFilter: an error line is never dropped, at any level and whatever
// precedes or follows it; output lines are bounded; Write accepts all.
func FuzzFilter(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixtureDir, "*"))
	own, _ := filepath.Glob("testdata/*.log")
	for _, p := range append(files, own...) {
		if b, err := os.ReadFile(p); err == nil {
			half := min(len(b), 8<<10)
			f.Add(b[:half/2], b[half/2:half], uint8(0))
		}
	}
	f.Add([]byte("Testing failed:\n\tA\n"), []byte("\t-[X y]\n"), uint8(1))
	f.Add([]byte(`{"Time":"t","Action":"output","Package":"p","Test":"T","Output":"x\n"}`), []byte(`{"Action":"fail","Package":"p","Test":"T"}`), uint8(2))
	f.Add([]byte("a.c:1:1: warning: w\n  int x;\n  ^\n"), []byte("\x1b[31merror\x1b[0m\r\n"), uint8(0))
	f.Fuzz(func(t *testing.T, before, after []byte, lvl uint8) {
		level := Level(int(lvl) % 3)
		in := make([]byte, 0, len(before)+len(after)+len(fuzzMarker)+2)
		in = append(in, before...)
		in = append(in, '\n')
		in = append(in, fuzzMarker...)
		in = append(in, '\n')
		in = append(in, after...)

		var out bytes.Buffer
		flt := New(level, &out)
		step := 1 + int(lvl)%97
		for p := in; len(p) > 0; {
			n := min(step, len(p))
			if k, err := flt.Write(p[:n]); err != nil || k != n {
				t.Fatalf("Write = %d, %v; want %d, nil", k, err, n)
			}
			p = p[n:]
		}
		if err := flt.Close(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), fuzzMarker) {
			t.Fatalf("%s dropped the error line; output:\n%s", level, out.String())
		}
		for l := range strings.SplitSeq(out.String(), "\n") {
			if len(l) > MaxLineBytes+256 {
				t.Fatalf("output line of %d bytes", len(l))
			}
		}
		if s := flt.Summary(); s.BytesIn != int64(len(in)) {
			t.Fatalf("BytesIn = %d, want %d", s.BytesIn, len(in))
		}
	})
}
