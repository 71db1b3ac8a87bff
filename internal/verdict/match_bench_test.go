package verdict

import (
	"bytes"
	"testing"
)

// benchLines are 100-byte lines of lower-case letters, as the capture
// benchmark's program prints them.
func benchLines() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 1<<20; i++ {
		if i%100 == 99 {
			b.WriteByte('\n')
		} else {
			b.WriteByte('a' + byte(i%26))
		}
	}
	return b.Bytes()
}

func BenchmarkMatcher(b *testing.B) {
	data := benchLines()
	m := compiledPatterns()
	for _, bb := range []struct {
		name string
		scan func([]byte, []int) []int
	}{{"prefiltered", m.scan}, {"automaton", m.run}} {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			var hits []int
			for b.Loop() {
				for p := data; len(p) > 0; {
					i := bytes.IndexByte(p, '\n')
					if i < 0 {
						i = len(p)
					}
					hits = bb.scan(p[:i], hits[:0])
					p = p[min(i+1, len(p)):]
				}
			}
		})
	}
}
