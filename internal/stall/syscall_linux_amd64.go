package stall

import "golang.org/x/sys/unix"

// amd64 keeps the older waits that arm64's table dropped.
func init() {
	calls[unix.SYS_POLL] = call{"poll", msArg, 2}
	calls[unix.SYS_SELECT] = call{"select", relVal, 4}
	calls[unix.SYS_EPOLL_WAIT] = call{"epoll_wait", msArg, 3}
	calls[unix.SYS_PAUSE] = call{"pause", forever, 0}
}
