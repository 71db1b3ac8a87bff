//go:build !linux

package hang

import "errors"

type member struct {
	pid, ppid int
	comm      string
	state     byte
}

// groupMembers needs /proc; elsewhere the capture says so and the kill
// proceeds.
func groupMembers(int) ([]member, error) {
	return nil, errors.New("listing a process group's members needs /proc (Linux)")
}

func threadStates(int) map[int]byte { return nil }

func exited(int) bool { return true }

func exePath(int) string { return "" }
