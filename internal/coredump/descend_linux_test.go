package coredump

import (
	"os"
	"testing"
)

func TestDescends(t *testing.T) {
	// 300 (meson) → 310 (a test script, setsid) → 320 (a subshell) → 330 (getent)
	parents := map[int]int{300: 1, 310: 300, 320: 310, 330: 320, 400: 1}
	for _, tt := range []struct {
		pid  int
		want bool
	}{{330, true}, {320, true}, {310, true}, {400, false}, {999, false}} {
		if got := descends(parents, tt.pid, 300); got != tt.want {
			t.Errorf("descends(%d, 300) = %v", tt.pid, got)
		}
	}
	if got := processParents()[os.Getpid()]; got != os.Getppid() {
		t.Errorf("processParents: this process's parent %d, want %d", got, os.Getppid())
	}
}
