package testutil

import (
	"context"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// WaitGone waits up to timeout for pid to exit and reports whether it did.
// On Linux it waits on a pidfd (spawn.AwaitExit), so tests block on the
// kernel's own signal instead of polling. Zombies count as gone.
func WaitGone(pid int, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	gone, err := spawn.AwaitExit(ctx, pid)
	if err != nil {
		return pollGone(pid, timeout) // no pidfds (a kernel before 5.3)
	}
	return gone || !ProcessAlive(pid)
}
