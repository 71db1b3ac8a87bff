package capture

import "testing"

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
