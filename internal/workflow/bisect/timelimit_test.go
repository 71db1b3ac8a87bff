package bisect_test

import (
	"strings"
	"testing"
)

// TestBisectTimeLimitNamed: a bisect whose time_limit_s runs out between
// steps says which limit it was, in the words every time limit is named
// with (capture.Limit), and how long it was.
func TestBisectTimeLimitNamed(t *testing.T) {
	dir, hashes := history(t)
	c := connect(t, "bisect", "output")
	r := c.Call("bisect", map[string]any{"project_dir": dir, "good": hashes[0], "time_limit_s": 0.001})
	if want := "(time limit of 1ms reached: time_limit_s)"; !strings.Contains(r.FirstLine(), want) {
		t.Fatalf("outcome %q, verdict %q, want …%q…\n%s", r.Outcome, r.FirstLine(), want, r.Text)
	}
	if strings.Contains(r.Text, "(time limit reached)") {
		t.Errorf("the limit is said twice, once unnamed:\n%s", r.Text)
	}
}
