package textclip

import (
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc…"},
		{"héllo", 2, "h…"}, // é is two bytes: not split
		{"日本語", 4, "日…"},
		{"abc", 0, "…"},
		{"abc", -1, "…"},
	} {
		got := String(tt.in, tt.n)
		if got != tt.want || !utf8.ValidString(got) {
			t.Errorf("String(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
	if got := Prefix("日本語", 5); got != "日" {
		t.Errorf("Prefix = %q", got)
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 lines", 1: "1 line", 2: "2 lines", 10: "10 lines"} {
		if got := Count(n, "line"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
