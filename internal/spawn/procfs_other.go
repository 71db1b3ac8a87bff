//go:build !linux

package spawn

import (
	"errors"
	"syscall"
)

// GroupMembers needs /proc; elsewhere callers say so and go on.
func GroupMembers(int) ([]Member, error) {
	return nil, errors.New("listing a process group's members needs /proc (Linux)")
}

// ThreadStates needs /proc: elsewhere it knows nothing.
func ThreadStates(int) map[int]byte { return nil }

// Exited reports whether pid is gone. Without /proc a zombie cannot be
// told from a live process, so a zombie counts as alive.
func Exited(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err != nil && !errors.Is(err, syscall.EPERM)
}

// Escaped needs /proc's parent links: elsewhere only the group is known.
func Escaped(int, int) []Member { return nil }

func startTime(int) uint64 { return 0 }
