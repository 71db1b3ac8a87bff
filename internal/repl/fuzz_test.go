package repl

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzFraming: whatever an engine prints before the sentinel's result, and
// however its output is cut into writes, the result line is found and the
// command's output is exactly what came before it; the sink never holds
// more than its bound, and what it dropped is announced.
func FuzzFraming(f *testing.F) {
	f.Add([]byte("$1 = 42\n(gdb) "), int64(0), uint8(3))
	f.Add([]byte("\x1b[1mbold\x1b[0m\r\nline two\r\n"), int64(5), uint8(1))
	f.Add([]byte("\x1b]0;title\x07crash> bt\nPID: 1\n"), int64(2), uint8(200))
	f.Add([]byte(strings.Repeat("x", 5000)), int64(1), uint8(17))
	f.Add([]byte("Traceback (most recent call last):\n  File \"<console>\", line 1\nNameError\n>>> "), int64(9), uint8(64))
	f.Fuzz(func(t *testing.T, out []byte, n int64, chunk uint8) {
		if n < 0 {
			n = -(n + 1)
		}
		n %= 1 << 20
		sen := SumSentinel("p %d+%d")(n)
		var a, b int64
		if _, err := fmt.Sscanf(sen.Command, "p %d+%d", &a, &b); err != nil {
			t.Fatalf("sentinel command %q: %v", sen.Command, err)
		}
		sum := fmt.Sprint(a + b)
		if strings.Contains(string(out), sum) {
			t.Skip("output quotes the sentinel's result")
		}
		const max = 4096
		s := newSink(max)
		step := int(chunk) + 1
		all := append(append([]byte(nil), out...), "\n$1 = "+sum+"\n(gdb) "...)
		for p := all; len(p) > 0; {
			k := min(step, len(p))
			s.Write(p[:k])
			p = p[k:]
			if len(s.buf) > max {
				t.Fatalf("sink holds %d bytes, bound %d", len(s.buf), max)
			}
		}
		text := s.text()
		i := sen.Done(text)
		if i < 0 {
			t.Fatalf("result line not found in %q", text)
		}
		if len(all) <= max {
			if want := StripANSI(string(out) + "\n"); text[:i] != want {
				t.Fatalf("command output\n%q\nwant\n%q", text[:i], want)
			}
		} else if !strings.HasPrefix(text, fmt.Sprintf("[... %d bytes of earlier output dropped ...]\n", len(all)-max)) {
			t.Fatalf("dropped output not announced: %q", text[:min(len(text), 80)])
		}
	})
}
