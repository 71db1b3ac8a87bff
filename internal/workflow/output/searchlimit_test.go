package output_test

import (
	"strings"
	"testing"
)

// TestSearchTimeLimit: output_search takes time_limit_s (not listed, as
// its default is seldom changed); a search past it answers what it found
// and says where it stopped; a limit out of bounds is a usage error.
func TestSearchTimeLimit(t *testing.T) {
	c, id, _ := storedOutput(t, 200000) // about 2 MB: several chunks, the limit is checked after each
	r := c.Call("output_search", map[string]any{"output_id": id, "pattern": "line", "time_limit_s": 1e-6})
	if r.IsError || !strings.Contains(r.Text, "time limit passed") || !strings.Contains(r.Text, "time_limit_s") {
		t.Fatalf("a search past its time limit: isError %v, %q", r.IsError, r.Text)
	}
	// Which limit ran out, in the words every time limit is named with.
	if want := "; the limit ran out after 1µs (time_limit_s, at most 300)"; !strings.Contains(r.Text, want) {
		t.Errorf("a search past its time limit does not name it as %q:\n%.300s", want, r.Text)
	}
	if !strings.Contains(r.Text, ":line 0") && !strings.Contains(r.Text, "line 0\n") {
		t.Errorf("the search did not answer the matches it found: %.300q", r.Text)
	}
	for _, bad := range []float64{-1, 301} {
		if r := c.Call("output_search", map[string]any{"output_id": id, "pattern": "x", "time_limit_s": bad}); !r.IsError || r.Outcome != "usage_error" {
			t.Errorf("time_limit_s %v: %v %q, want a usage error", bad, r.Outcome, r.Text)
		}
	}
	if r := c.Call("output_search", map[string]any{"output_id": id, "pattern": "line 199999$"}); r.IsError || strings.Contains(r.Text, "stopped") || !strings.Contains(r.Text, "1 matching line") {
		t.Errorf("a search within the default limit: %q", r.Text)
	}
}
