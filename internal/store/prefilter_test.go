package store

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestPrefilterLiterals(t *testing.T) {
	tests := []struct {
		pattern string
		want    []string // nil: no prefilter
		fold    bool
	}{
		{`error`, []string{"error"}, false},
		{`[0-9]+:5: error: use of`, []string{":5: error: use of"}, false},
		{`warning|error`, []string{"warning", "error"}, false},
		{`(?i)Segfault`, []string{"segfault"}, true},
		{`(?i:fatal)|panic:`, []string{"fatal", "panic:"}, true},
		{`(abc)+x`, []string{"abc"}, false},
		{`x(?:abc){2,}`, []string{"abc"}, false},
		{`^\d+$`, nil, false},
		{`(?:abc)?x`, nil, false},           // abc is optional, x too short
		{`abc|\d+`, nil, false},             // one branch has no literal
		{`a|bc`, nil, false},                // a literal too short to help
		{`(?i)straße`, nil, false},          // non-ASCII folding
		{`a{0,3}zz`, []string{"zz"}, false}, //
		{`(a|b|c|d|e|f|g|h|i)xyz`, []string{"xyz"}, false},
		{`aa|bb|cc|dd|ee|ff|gg|hh|ii`, nil, false}, // too many scans
	}
	for _, tc := range tests {
		p := newPrefilter("(?m)" + tc.pattern)
		var got []string
		if p != nil {
			for _, l := range p.lits {
				got = append(got, string(l.lit))
			}
		}
		if !slices.Equal(got, tc.want) || (p != nil && p.fold != tc.fold) {
			t.Errorf("%s: literals %q fold %v, want %q fold %v", tc.pattern, got, p != nil && p.fold, tc.want, tc.fold)
		}
	}
}

// TestNeedleIndex checks the rare-byte scan against bytes.Index, including
// texts where the "rare" byte is everywhere (the bytes.Index fallback).
func TestNeedleIndex(t *testing.T) {
	tests := []struct{ text, lit string }{
		{"", "ab"},
		{"ab", "ab"},
		{"xab", "ab"},
		{"a", "ab"},
		{strings.Repeat("a", 5000) + "b", strings.Repeat("a", 30) + "b"},
		{strings.Repeat("ab", 5000), "abb"},
		{strings.Repeat("abc", 3000) + "abd", "abd"},
		{"segfault segmentation fault", "segmentation fault"},
		{strings.Repeat("z", 100) + "zq" + strings.Repeat("qz", 100), "zqq"},
	}
	for _, tc := range tests {
		var freq [256]int
		for _, c := range []byte(tc.text[:min(len(tc.text), 64)]) {
			freq[c]++
		}
		n := needle{lit: []byte(tc.lit)}
		n.pickRare(&freq)
		for from := range min(len(tc.text), 40) + 1 {
			want := bytes.Index([]byte(tc.text[from:]), n.lit)
			if want >= 0 {
				want += from
			}
			if got := n.index([]byte(tc.text), from); got != want {
				t.Errorf("index(%.20q…, %q, from %d) = %d, want %d", tc.text, tc.lit, from, got, want)
			}
		}
	}
}

// TestSearchMatchesLineByLine checks Search (prefilter or regexp scan)
// against matching each line alone, over text that spans chunks, mixes case,
// holds the Unicode folds of k and s, and ends without a newline.
func TestSearchMatchesLineByLine(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:", Options{})
	var lines []string
	for i := range 30000 {
		var l string
		switch i % 11 {
		case 0:
			l = fmt.Sprintf("src/f%d.c:%d:5: error: use of undeclared identifier", i, i)
		case 1:
			l = fmt.Sprintf("WARNING: Deprecated %d", i)
		case 2:
			l = ""
		case 3:
			l = "Segmentation fault (core dumped)"
		case 4:
			l = "\u212aernel \u017fegfault \xff\xfe"
		case 5:
			l = "kernel segfault at 0 ip"
		default:
			l = fmt.Sprintf("[%d/30000] Compiling file_%d.c error", i, i)
		}
		lines = append(lines, l)
	}
	text := strings.Join(lines, "\n") + "\nerror at the end"
	lines = append(lines, "error at the end")
	id, err := s.Put(ctx, Meta{Tool: "t"}, text, Final{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pattern := range []string{
		`error`, `^error`, `error$`, `[0-9]+:5: error: use of`, `warning|segmentation`,
		`(?i)warning|segmentation`, `(?i)KERNEL SEGFAULT`, `(?i)segfault`, `^$`, `\d+$`,
		`core dumped\)\n\[`, `(?i)deprecated \d+`, `[^x]+`, `\xff`,
	} {
		re := regexp.MustCompile("(?m)" + pattern)
		var want []int
		for i, l := range lines {
			if re.MatchString(l) {
				want = append(want, i)
			}
		}
		// Every match is kept, past the limit a caller may ask for.
		res := SearchResult{keep: 1 << 30}
		if err := s.searchOne(ctx, id, re, newPrefilter("(?m)"+pattern), &res); err != nil {
			t.Fatalf("%s: %v", pattern, err)
		}
		var got []int
		for _, m := range res.Matches {
			got = append(got, m.Line)
			if m.Text != lines[m.Line] {
				t.Fatalf("%s: line %d text %q, want %q", pattern, m.Line, m.Text, lines[m.Line])
			}
		}
		if res.Total != len(want) || !slices.Equal(got, want) {
			t.Errorf("%s: %d matches (first %v), want %d (first %v)", pattern, res.Total, got[:min(5, len(got))], len(want), want[:min(5, len(want))])
		}
	}
}
