package catalog

import (
	"strings"
	"testing"
)

func TestClipText(t *testing.T) {
	s := strings.Repeat("ab", 100)
	if got := clipText(s, 1000); got != s {
		t.Error("text within the limit changed")
	}
	got := clipText(s, 51)
	if !strings.HasPrefix(got, s[:51]) || !strings.Contains(got, "[cut: 51 of 200 bytes]") || !strings.Contains(got, "output_get") {
		t.Errorf("clipText = %q", got)
	}
}
