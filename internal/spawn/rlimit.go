package spawn

import (
	"sync"
	"syscall"
)

// forkMu serialises every fork done by this package with the window during
// which our own RLIMIT_CORE is raised.
//
// A child inherits resource limits at fork, and Go offers no hook between
// fork and exec. Raising the limit on the child after it started (prlimit)
// races with a program that crashes in its first microseconds, so instead
// we raise our own soft limit, fork, and restore it, all under forkMu. Every
// Start takes forkMu, so a child that did not ask for core dumps can never
// be forked inside the window. The cost is that forks are serialised, which
// is cheap next to the exec that follows. Processes started outside this
// package (which the project forbids) are not covered.
var forkMu sync.Mutex

// withCoreLimit runs fork with RLIMIT_CORE raised to the hard limit when
// raise is set. It must be called with forkMu held.
func withCoreLimit(raise bool, fork func() error) error {
	if !raise {
		return fork()
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_CORE, &old); err != nil || old.Cur >= old.Max {
		return fork() // nothing to raise (or cannot tell): the child inherits ours
	}
	raised := syscall.Rlimit{Cur: old.Max, Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_CORE, &raised); err != nil {
		return fork()
	}
	defer syscall.Setrlimit(syscall.RLIMIT_CORE, &old) // restoring the limit we just read
	return fork()
}
