//go:build !linux

package testutil

import "time"

// WaitGone waits up to timeout for pid to exit and reports whether it did.
// Without pidfds it polls, which is the best macOS offers short of kqueue.
func WaitGone(pid int, timeout time.Duration) bool { return pollGone(pid, timeout) }
