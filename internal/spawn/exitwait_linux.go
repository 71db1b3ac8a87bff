package spawn

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const sysPidfdOpen = 434 // the same number on every Linux architecture

// ErrNoPidfd says the kernel cannot give a process descriptor (before Linux
// 5.3, or a seccomp filter refuses it): the caller polls instead.
var ErrNoPidfd = errors.New("pidfd_open is not available")

// AwaitExit blocks until pid, which need not be a child of this process, has
// exited (a zombie counts) or ctx ends, and reports whether it exited. It
// waits on a pidfd, which the kernel makes readable at the exit, so the
// wait costs nothing while the process runs (polling /proc takes CPU from
// a process dumping its goroutines on a small machine).
func AwaitExit(ctx context.Context, pid int) (bool, error) {
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	switch errno {
	case 0:
	case syscall.ESRCH:
		return true, nil
	default:
		return false, ErrNoPidfd
	}
	if err := syscall.SetNonblock(int(fd), true); err != nil {
		syscall.Close(int(fd))
		return false, ErrNoPidfd
	}
	f := os.NewFile(fd, "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return false, ErrNoPidfd
	}
	if deadline, ok := ctx.Deadline(); ok {
		f.SetReadDeadline(deadline)
	}
	stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })
	defer stop()
	err = rc.Read(func(fd uintptr) bool {
		// Ask the descriptor itself: the poller forgets a readiness it saw
		// before this read began, and a zombie's pidfd is readable from its
		// open on, so "wait once, then done" could wait for an edge that
		// never comes.
		return exited(int(fd))
	})
	if err == nil {
		return true, nil
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return false, nil
	}
	return false, err
}

// exited reports whether a pidfd is readable (its process has exited) or
// hung up (reaped, on newer kernels), without waiting.
func exited(pidfd int) bool {
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 0)
		if err == unix.EINTR {
			continue
		}
		return err == nil && n > 0 && fds[0].Revents&(unix.POLLIN|unix.POLLHUP) != 0
	}
}
