package spawn

import (
	"context"
	"time"
)

// Member is one process of a process group, as the system reports it.
type Member struct {
	Pid, PPid int
	Comm      string
	State     byte // the kernel's: R running, S sleeping, D disk, Z zombie, T stopped
}

// WaitExited waits until pid, which need not be a child of this process,
// is dead (a zombie counts) or ctx ends, and reports whether it died. It
// waits on a pidfd, or polls where there is none.
func WaitExited(ctx context.Context, pid int) bool {
	if gone, err := AwaitExit(ctx, pid); err == nil {
		return gone
	}
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for !Exited(pid) {
		select {
		case <-ctx.Done():
			return Exited(pid)
		case <-t.C:
		}
	}
	return true
}
