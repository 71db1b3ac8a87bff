package debug

import "testing"

// A session with nothing known of its target detaches without empty
// parentheses.
func TestDetachedText(t *testing.T) {
	if got, want := detachedText("dbg-2", ""), "DETACHED dbg-2\n"; got != want {
		t.Errorf("no target: %q, want %q", got, want)
	}
	if got, want := detachedText("dbg-1", "./prog (pid 42)"), "DETACHED dbg-1 (./prog (pid 42))\n"; got != want {
		t.Errorf("a target: %q, want %q", got, want)
	}
}
