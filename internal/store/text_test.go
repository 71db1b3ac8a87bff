package store

import (
	"context"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/fault"
)

// TestPageWithinAndText: a page is cut to the byte budget from its end,
// never below one line, and says more follows; a negative limit is the
// caller's mistake; matches print as grep -n with 1-based lines.
func TestPageWithinAndText(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:", Options{})
	w, err := s.Create(ctx, Meta{Tool: "run", Argv: []string{"./a"}})
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(strings.Repeat("0123456789\n", 10)))
	if err := w.Finish(ctx, Final{Status: "success", VerdictLine: "OK"}); err != nil {
		t.Fatal(err)
	}
	p, err := s.PageWithin(ctx, w.ID(), 2, 0, 40) // 18 bytes a line
	if err != nil || len(p.Lines) != 2 || !p.More {
		t.Errorf("page within 40 bytes: %d lines, more %v, %v; want 2 lines and more", len(p.Lines), p.More, err)
	}
	if p, err = s.PageWithin(ctx, w.ID(), 9, 0, 1); err != nil || len(p.Lines) != 1 || p.More {
		t.Errorf("last line within 1 byte: %+v, %v; want that line alone", p.Lines, err)
	}
	if _, err := s.PageWithin(ctx, w.ID(), 0, -1, 40); !fault.Is(err, fault.KindUsage) {
		t.Errorf("negative limit: %v, want a usage error", err)
	}
	res := SearchResult{Matches: []Match{{ID: "a", Line: 1, Text: "x", Before: []string{"w"}}, {ID: "a", Line: 5, Text: "y"}}}
	var b strings.Builder
	res.WriteMatches(&b)
	if want := "a:1- w\na:2: x\n--\na:6: y\n"; b.String() != want {
		t.Errorf("matches:\n%s\nwant:\n%s", b.String(), want)
	}
	if e, _ := s.Info(ctx, w.ID()); !strings.HasSuffix(e.Line(), "./a  OK") {
		t.Errorf("entry line %q, want argv then verdict", e.Line())
	}
}
