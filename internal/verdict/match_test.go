package verdict

import (
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
