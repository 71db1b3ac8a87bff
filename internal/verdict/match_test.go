package verdict

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMatcher(t *testing.T) {
	keys := []string{"he", "she", "his", "hers", "panic: ", "a", "aaa"}
	tests := []struct {
		line string
		want []string
	}{
		{"", nil},
		{"ushers", []string{"he", "hers", "she"}},
		{"this", []string{"his"}},
		{"panic: x", []string{"a", "panic: "}},
		{"panic:", []string{"a"}},
		{"aaaa", []string{"a", "aaa"}},
		{"\x00\xff\n\r", nil},
		{strings.Repeat("h", 1000) + "e", []string{"he"}},
		{"PANIC: ", nil}, // keys are case-sensitive
	}
	m := newMatcher(keys)
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			var got []string
			for _, k := range m.scan([]byte(tt.line), nil) {
				got = append(got, keys[k])
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMatcherAgreesWithContains(t *testing.T) {
	// Every pack key, against every other key used as a line: the DFA must
	// find exactly what strings.Contains finds.
	keys := make([]string, len(patterns()))
	for i, p := range patterns() {
		keys[i] = p.key
	}
	m := newMatcher(keys)
	for _, line := range append(keys, "xx"+strings.Join(keys, "|")+"yy") {
		found := make(map[int]bool)
		for _, k := range m.scan([]byte(line), nil) {
			found[k] = true
		}
		for i, k := range keys {
			if strings.Contains(line, k) != found[i] {
				t.Errorf("key %q in %q: Contains=%v matcher=%v", k, line, !found[i], found[i])
			}
		}
	}
}

// packKeys are the keys of the indicator packs, in pattern order.
func packKeys() []string {
	keys := make([]string, len(patterns()))
	for i, p := range patterns() {
		keys[i] = p.key
	}
	return keys
}

// checkScan: the prefiltered scan finds exactly what the automaton over
// every byte finds, and that is exactly the keys strings.Contains finds.
func checkScan(t *testing.T, m *matcher, keys []string, line string) {
	t.Helper()
	got := slices.Sorted(slices.Values(m.scan([]byte(line), nil)))
	plain := slices.Sorted(slices.Values(m.run([]byte(line), nil)))
	var want []int
	for i, k := range keys {
		if strings.Contains(line, k) {
			want = append(want, i)
		}
	}
	if !slices.Equal(got, plain) || !slices.Equal(got, want) {
		t.Fatalf("%q: prefiltered %v, automaton %v, strings.Contains %v", line, got, plain, want)
	}
}

// TestPrefilteredScanAgrees puts pack keys at the starts and ends of lines,
// overlapping one another, cut short by a byte, and among random bytes.
func TestPrefilteredScanAgrees(t *testing.T) {
	keys := packKeys()
	m := newMatcher(keys)
	r := rand.New(rand.NewPCG(3, 4))
	noise := func() string {
		b := make([]byte, r.IntN(24))
		for i := range b {
			const bytes = " ab:*]\t\xe2"
			b[i] = bytes[r.IntN(len(bytes))]
		}
		return string(b)
	}
	for _, k := range keys {
		checkScan(t, m, keys, k)
		checkScan(t, m, keys, k[:len(k)-1])
		checkScan(t, m, keys, k[1:])
		checkScan(t, m, keys, noise()+k)
		checkScan(t, m, keys, k+noise())
	}
	for range 20000 {
		var line strings.Builder
		for range 1 + r.IntN(4) {
			line.WriteString(noise())
			k := keys[r.IntN(len(keys))]
			switch r.IntN(3) {
			case 0:
				k = k[:r.IntN(len(k)+1)]
			case 1:
				k = k[r.IntN(len(k)):]
			}
			line.WriteString(k)
		}
		checkScan(t, m, keys, line.String())
	}
}

// FuzzPrefilteredScan: on any line, and the lines of real logs, the
// prefiltered scan and the automaton agree with strings.Contains.
func FuzzPrefilteredScan(f *testing.F) {
	for _, glob := range []string{"../../../shared/fixtures/xcodebuild/*", "../logfilter/testdata/*.log"} {
		files, _ := filepath.Glob(glob)
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				for l := range bytes.SplitSeq(b[:min(len(b), 64<<10)], []byte("\n")) {
					f.Add(string(l))
				}
			}
		}
	}
	keys := packKeys()
	m := newMatcher(keys)
	f.Fuzz(func(t *testing.T, line string) {
		checkScan(t, m, keys, line)
	})
}

// The pack's prefilter passes over the events of a passing go test -json
// run: every line of it holds the event's keys, a module path on
// github.com, "=== RUN" or "--- PASS: … (0.00s)", none of which may
// anchor a pattern, or the automaton reads every byte of such a run.
func TestPrefilterPassesOverGoTestEvents(t *testing.T) {
	m := compiledPatterns()
	for _, line := range []string{
		`{"Time":"2026-11-27T11:08:44.954204046Z","Action":"start","Package":"github.com/google/uuid"}`,
		`{"Time":"2026-11-27T11:08:44.958959069Z","Action":"run","Package":"github.com/google/uuid","Test":"TestJSON"}`,
		`{"Time":"2026-11-27T11:08:44.958994857Z","Action":"output","Package":"github.com/google/uuid","Test":"TestJSON","Output":"=== RUN   TestJSON\n"}`,
		`{"Time":"2026-11-27T11:08:44.959104625Z","Action":"output","Package":"github.com/google/uuid","Test":"TestJSON","Output":"--- PASS: TestJSON (0.00s)\n"}`,
		`{"Time":"2026-11-27T11:08:44.959125823Z","Action":"pass","Package":"github.com/google/uuid","Test":"TestJSON","Elapsed":0}`,
	} {
		if m.pre.Maybe([]byte(line)) {
			t.Errorf("passed, holding no pattern: %s", line)
		}
	}
}
