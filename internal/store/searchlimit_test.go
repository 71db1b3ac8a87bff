package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestSearchTimeLimit: a search past its time limit stops between chunks
// and answers what it found, saying where it stopped; with the default
// limit the same search reads everything; a cancelled one ends with the
// cancellation.
func TestSearchTimeLimit(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:", Options{})
	const lines = 60_000 // about 1.6 MB: several chunks
	var b strings.Builder
	for i := range lines {
		fmt.Fprintf(&b, "line %d error %s\n", i, strings.Repeat("x", 12))
	}
	id, err := s.Put(ctx, Meta{Tool: "run"}, b.String(), Final{Status: "success"})
	if err != nil {
		t.Fatal(err)
	}

	res, err := s.Search(ctx, Query{ID: id, Pattern: "error", TimeLimit: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped == "" || !strings.Contains(res.Stopped, "time limit") || res.Total == 0 || res.Total >= lines || !res.Truncated {
		t.Errorf("past its time limit: total %d of %d, truncated %v, stopped %q", res.Total, lines, res.Truncated, res.Stopped)
	}

	res, err = s.Search(ctx, Query{ID: id, Pattern: "error"})
	if err != nil || res.Total != lines || res.Stopped != "" {
		t.Errorf("with the default limit: total %d of %d, stopped %q, %v", res.Total, lines, res.Stopped, err)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Search(cctx, Query{ID: id, Pattern: "error"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled search: %v, want context.Canceled", err)
	}
}
