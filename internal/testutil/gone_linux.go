package testutil

import (
	"errors"
	"os"
	"syscall"
	"time"
)

const sysPidfdOpen = 434 // same number on every Linux architecture

// WaitGone waits up to timeout for pid to exit and reports whether it did.
// On Linux it waits on a pidfd, which becomes readable when the process
// exits, so tests block on the kernel's own signal instead of polling.
// Zombies count as gone.
func WaitGone(pid int, timeout time.Duration) bool {
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if errno == syscall.ESRCH {
		return true
	}
	if errno != 0 {
		return pollGone(pid, timeout) // kernel older than 5.3
	}
	if err := syscall.SetNonblock(int(fd), true); err != nil {
		syscall.Close(int(fd))
		return pollGone(pid, timeout)
	}
	f := os.NewFile(fd, "pidfd")
	defer f.Close()
	if err := f.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		return pollGone(pid, timeout) // not pollable here
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return pollGone(pid, timeout)
	}
	waited := false
	err = rc.Read(func(uintptr) bool {
		// First call: ask the poller to wait for readability (exit).
		done := waited
		waited = true
		return done
	})
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return !ProcessAlive(pid)
	}
	return err == nil || !ProcessAlive(pid)
}
