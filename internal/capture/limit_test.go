package capture

import (
	"testing"
	"time"
)

func TestNameLimit(t *testing.T) {
	for _, tt := range []struct{ line, limit, want string }{
		{"TIMED OUT after 10m0s — process group killed", "the built-in limit; timeout_s raises it",
			"TIMED OUT after 10m0s (the built-in limit; timeout_s raises it) — process group killed"},
		{"TIMED OUT after 3s in the test step while running x", "timeout_s", "TIMED OUT after 3s (timeout_s) in the test step while running x"},
		{"TIMED OUT after 3s", "timeout_s", "TIMED OUT after 3s (timeout_s)"},
		{"TIMED OUT after 3s — process group killed", "", "TIMED OUT after 3s — process group killed"},
		{"TIMED OUT (exit 124 from timeout(1))", "timeout_s", "TIMED OUT (exit 124 from timeout(1))"},
		{"HUNG: no progress for 2s", "timeout_s", "HUNG: no progress for 2s"},
	} {
		if got := NameLimit(tt.line, tt.limit); got != tt.want {
			t.Errorf("NameLimit(%q, %q) = %q, want %q", tt.line, tt.limit, got, tt.want)
		}
	}
}

func TestLimitString(t *testing.T) {
	for _, tt := range []struct {
		l    Limit
		want string
	}{
		{LimitOf("timeout_s", true, false, "timeouts.run"), "timeout_s"},
		{LimitOf("timeout_s", true, true, ""), "the session default timeout_s"},
		{LimitOf("timeout_s", false, false, "timeouts.command"), "the config's timeouts.command; timeout_s overrides it"},
		{LimitOf("wait_s", false, false, ""), "the built-in limit; wait_s raises it"},
		{Limit{Arg: "time_limit_s", Max: 300 * time.Second}, "the built-in limit; time_limit_s raises it, at most 300"},
		{Limit{}, ""},
	} {
		if got := tt.l.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.l, got, tt.want)
		}
	}
	if got := LimitOf("wait_s", true, false, "").Said(200 * time.Millisecond); got != "after 200ms (wait_s)" {
		t.Errorf("Said: %q", got)
	}
	if got := (Limit{}).Said(time.Second); got != "after 1s" {
		t.Errorf("Said with no limit: %q", got)
	}
}
