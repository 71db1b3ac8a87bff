package store

import (
	"bytes"
	"context"
	"testing"
)

// TestFindFiltersAndPages: newest first, by status, tool and text, paged,
// with the count of all that pass.
func TestFindFiltersAndPages(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:", Options{})
	put := func(tool, status, verdict string) string {
		id, err := s.Put(ctx, Meta{Tool: tool, Argv: []string{tool, "arg"}}, "x\n", Final{Status: status, VerdictLine: verdict})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	a := put("run", "crash", "CRASHED (SIGSEGV) in main")
	b := put("test", "failure", "FAILED: 1 of 3 tests")
	c := put("run", "success", "SUCCEEDED")
	for _, tc := range []struct {
		f    Filter
		want []string
		all  int
	}{
		{Filter{}, []string{c, b, a}, 3},
		{Filter{Statuses: []string{"crash"}}, []string{a}, 1},
		{Filter{Statuses: []string{"crash", "failure"}}, []string{b, a}, 2},
		{Filter{Tool: "run"}, []string{c, a}, 2},
		{Filter{Text: "sigsegv"}, []string{a}, 1},
		{Filter{Limit: 1, Offset: 1}, []string{b}, 3},
	} {
		l, err := s.Find(ctx, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range l.Entries {
			got = append(got, e.ID)
		}
		if len(got) != len(tc.want) || l.Total != tc.all {
			t.Errorf("%+v: %v (of %d), want %v (of %d)", tc.f, got, l.Total, tc.want, tc.all)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%+v: %v, want %v", tc.f, got, tc.want)
			}
		}
	}
}

// TestChangedAndWriteRaw: a finished output closes the Changed channel,
// and WriteRaw gives back its bytes.
func TestChangedAndWriteRaw(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:", Options{})
	ch := s.Changed()
	id, err := s.Put(ctx, Meta{Tool: "run"}, "one\ntwo\n", Final{Status: "success"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
	default:
		t.Fatal("Changed was not closed by a new output")
	}
	var b bytes.Buffer
	if err := s.WriteRaw(ctx, id, &b); err != nil || b.String() != "one\ntwo\n" {
		t.Fatalf("WriteRaw = %q, %v", b.String(), err)
	}
}
