package testutil_test

import (
	"os"
	"testing"

	"github.com/triage-dev/triage/internal/testutil"
)

func TestProcessAlive(t *testing.T) {
	if !testutil.ProcessAlive(os.Getpid()) {
		t.Error("our own process reported dead")
	}
	// Pid max on Linux is at most 2^22; this one cannot exist.
	if testutil.ProcessAlive(1 << 30) {
		t.Error("impossible pid reported alive")
	}
}
