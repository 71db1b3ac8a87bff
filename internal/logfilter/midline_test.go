package logfilter

import (
	"strings"
	"testing"
)

// TestMidlineWordsAnywhere: the words classifyMidline looks for are found
// wherever they sit in a line (its start, its end, across the eight-byte
// rounds of the pair prefilter), among text of every letter.
func TestMidlineWordsAnywhere(t *testing.T) {
	filler := strings.Repeat("abcdefghijklmnopqrstuvwxyz", 2)
	for _, tt := range []struct {
		word string
		want Kind
	}{
		{"crashed", KindCrash},
		{"unexpected exit", KindCrash},
		{"Error Domain=NSCocoaErrorDomain", KindError},
	} {
		for pre := 0; pre <= 17; pre++ {
			for _, post := range []string{"", " x", filler} {
				line := filler[:pre] + " " + tt.word + post
				if got := Classify([]byte(line)); got != tt.want {
					t.Errorf("%q: %v, want %v", line, got, tt.want)
				}
			}
		}
		if got := Classify([]byte(filler + strings.ToUpper(tt.word[:1]) + "x" + tt.word[2:])); got != KindOther {
			t.Errorf("a near miss of %q classed %v", tt.word, got)
		}
	}
}
