package alarm

import (
	"strings"
	"testing"
)

// quiet are lines that hold a word of the table's letters and say nothing
// went wrong.
var quiet = []string{
	"1/5 ok   OK              0.02s",
	"Ok:                 4   ",
	"Expected Fail:      1   ",
	"Fail:               0   ",
	"Unexpected Pass:    0   ",
	"Timeout:            0   ",
	"# FAIL:  0",
	"# XFAIL: 1",
	"# ERROR: 0",
	"XFAIL: t-known",
	"100% tests passed, 0 tests failed out of 5",
	"5 Tests 0 Failures 0 Ignored",
	"=== RUN   TestFailure",
	"--- PASS: TestTimeoutHandling (0.00s)",
	"ok  \tgithub.com/x/failures\t0.01s",
	"checking for SIGSEGV handling... yes",
	"   12 |   abort(); // Aborted if SIGSEGV",
	"      |   ^~~~~ Segmentation fault",
	"Aborted transaction 12 was retried",
	"not ok 3 - known bug # TODO fix the parser",
	"#   Failed (TODO) test 'future feature'",
	"  Failed tests:  2, 5",
	"# Failed tests are retried once",
	"#   at t/01level0.t line 6.",
	"the request should not fail",
	"error handling is covered",
	"connect timeout = 30s",
	"Timeout: 30s",
	"test result: ok. 35 passed; 0 failed; 0 ignored",
	"running 0 tests",
	"panic handler installed",
	"errors: 0, warnings: 2",
	"SIGTERM sent to the server",
	"===============",
	"",
}

func TestSays(t *testing.T) {
	for _, c := range Says {
		h, ok := Match([]byte(c.Line))
		if !ok || h.Word != c.Word || h.Class != c.Class {
			t.Errorf("Match(%q) = %+v, %v; want %q (%s)", c.Line, h, ok, c.Word, c.Class)
		}
	}
}

func TestQuiet(t *testing.T) {
	for _, l := range quiet {
		if h, ok := Match([]byte(l)); ok {
			t.Errorf("Match(%q) = %+v; want none", l, h)
		}
	}
}

// TestEveryWordTested: each word of the table is read from a line of Says,
// so that no word is in the table untested.
func TestEveryWordTested(t *testing.T) {
	tested := map[string]bool{}
	for _, c := range Says {
		tested[c.Word] = true
	}
	var words []string
	for _, p := range phrases {
		words = append(words, p.text)
	}
	for w := range capitals {
		words = append(words, w)
	}
	for w := range counted {
		words = append(words, w)
	}
	for _, w := range words {
		if !tested[w] {
			t.Errorf("the table's word %q has no line in Says", w)
		}
	}
}

func FuzzMatch(f *testing.F) {
	for _, c := range Says {
		f.Add(c.Line)
	}
	for _, l := range quiet {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		h, ok := Match([]byte(line))
		if ok != (h.Class != None) || ok && !strings.Contains(strings.ToLower(line), strings.ToLower(strings.TrimSpace(h.Word))) {
			t.Fatalf("Match(%q) = %+v, %v", line, h, ok)
		}
	})
}

func BenchmarkMatch(b *testing.B) {
	lines := make([][]byte, 0, len(Says)+len(quiet))
	n := 0
	for _, l := range quiet {
		lines = append(lines, []byte(l))
		n += len(l) + 1
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, l := range lines {
			Match(l)
		}
	}
}
