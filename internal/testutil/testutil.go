// Package testutil holds helpers shared by tests across triage. Import it
// from _test files only; subpackage crashers builds misbehaving programs.
package testutil

import (
	"context"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// ProcessAlive reports whether pid names a live process. A zombie (exited,
// waiting for its parent or init to reap it) counts as dead: it runs no code
// and holds no pipes.
func ProcessAlive(pid int) bool { return !spawn.Exited(pid) }

// WaitGone waits up to timeout for pid to exit and reports whether it did:
// on a pidfd where there is one (spawn.WaitExited), so tests block on the
// kernel's own signal instead of polling. Zombies count as gone.
func WaitGone(pid int, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return spawn.WaitExited(ctx, pid)
}
