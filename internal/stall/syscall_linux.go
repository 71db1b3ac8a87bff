//go:build linux && (amd64 || arm64)

package stall

import (
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// how says how a syscall waits and where its timeout is.
type how uint8

const (
	sleeps     how = iota + 1 // on a timer by design
	forever                   // until a signal
	readsFD                   // until its fd (argument 0) has data
	child                     // until a child changes state
	msArg                     // int milliseconds in argument arg, < 0 none
	relSpec                   // pointer to a relative timespec in arg, NULL none
	relVal                    // pointer to a relative timeval in arg, NULL none
	futexOp                   // futex(2): by its op
	futexWaitv                // futex_waitv(2): absolute timespec in arg 3, clock in arg 4
)

type call struct {
	name string
	how  how
	arg  int
}

// calls are the syscalls a thread may wait in; the arch files add the
// ones only their table has.
var calls = map[int]call{
	unix.SYS_READ:            {"read", readsFD, 0},
	unix.SYS_READV:           {"readv", readsFD, 0},
	unix.SYS_PREAD64:         {"pread64", readsFD, 0},
	unix.SYS_PREADV:          {"preadv", readsFD, 0},
	unix.SYS_RECVFROM:        {"recvfrom", readsFD, 0},
	unix.SYS_RECVMSG:         {"recvmsg", readsFD, 0},
	unix.SYS_ACCEPT:          {"accept", readsFD, 0},
	unix.SYS_ACCEPT4:         {"accept4", readsFD, 0},
	unix.SYS_FUTEX:           {"futex", futexOp, 3},
	unix.SYS_FUTEX_WAITV:     {"futex_waitv", futexWaitv, 3},
	unix.SYS_EPOLL_PWAIT:     {"epoll_pwait", msArg, 3},
	unix.SYS_EPOLL_PWAIT2:    {"epoll_pwait2", relSpec, 3},
	unix.SYS_PPOLL:           {"ppoll", relSpec, 2},
	unix.SYS_PSELECT6:        {"pselect6", relSpec, 4},
	unix.SYS_RT_SIGTIMEDWAIT: {"rt_sigtimedwait", relSpec, 2},
	unix.SYS_RT_SIGSUSPEND:   {"rt_sigsuspend", forever, 0},
	unix.SYS_WAIT4:           {"wait4", child, 0},
	unix.SYS_WAITID:          {"waitid", child, 0},
	unix.SYS_NANOSLEEP:       {"nanosleep", sleeps, 0},
	unix.SYS_CLOCK_NANOSLEEP: {"clock_nanosleep", sleeps, 0},
}

// byCall classifies a thread sleeping in syscall nr with args; a wait for
// a connection says so (listenOn).
func byCall(t Thread, nr int, args [6]uint64, inGroup map[int]bool) Thread {
	t = waitIn(t, nr, args, inGroup)
	if t.Kind == Wait {
		if on := listenOn(t, t.Call, args); on != "" {
			t.On = on
		}
	}
	return t
}

// waitIn classifies a thread sleeping in syscall nr with args.
func waitIn(t Thread, nr int, args [6]uint64, inGroup map[int]bool) Thread {
	c, ok := calls[nr]
	t.Kind, t.Timeout = Other, -1
	if !ok {
		return t
	}
	t.Call = c.name
	switch c.how {
	case sleeps:
		t.Kind = Sleep
	case forever:
		t.Kind = Wait
	case readsFD:
		return readWait(t, int(int32(args[0])))
	case child:
		if childrenInGroup(t.Pid, inGroup) {
			t.Kind = Wait
		}
	case msArg:
		t.Kind = Wait
		if ms := int32(args[c.arg]); ms >= 0 {
			t.Timeout = time.Duration(ms) * time.Millisecond
		}
	case relSpec, relVal:
		return timedWait(t, args[c.arg], c.how == relVal)
	case futexOp:
		return futexTimeout(t, args)
	case futexWaitv:
		return absWait(t, args[3], int32(args[4]))
	}
	return t
}

// readWait classifies a read by what its fd is: a timerfd is a timer; a
// regular file is I/O, not a wait.
func readWait(t Thread, fd int) Thread {
	target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", t.Pid, fd))
	if err != nil {
		return t
	}
	switch {
	case target == "anon_inode:[timerfd]":
		t.Kind = Sleep
		return t
	case fd == 0:
		t.On = "stdin"
	case strings.HasPrefix(target, "pipe:"):
		t.On = "a pipe"
	case strings.HasPrefix(target, "socket:"):
		t.On = "a socket"
	case strings.HasPrefix(target, "/dev/pts/"), strings.HasPrefix(target, "/dev/tty"):
		t.On = "a terminal"
	case strings.HasPrefix(target, "anon_inode:"):
		t.On = "an " + strings.Trim(strings.TrimPrefix(target, "anon_inode:"), "[]")
	default:
		return t // a file or a device: I/O that ends on its own
	}
	t.Kind = Wait
	return t
}

// Futex commands (linux/futex.h) and flags.
const (
	futexWaitCmd    = 0
	futexLockPI     = 6
	futexWaitBitset = 9
	futexWaitReqPI  = 11
	futexLockPI2    = 13
	futexClockRT    = 256
	futexCmdMask    = ^(128 | futexClockRT)
)

// futexTimeout reads a futex wait's timeout: relative for FUTEX_WAIT,
// absolute for the others.
func futexTimeout(t Thread, args [6]uint64) Thread {
	op := int(int32(args[1]))
	clock := int32(unix.CLOCK_MONOTONIC)
	if op&futexClockRT != 0 {
		clock = unix.CLOCK_REALTIME
	}
	switch op & futexCmdMask {
	case futexWaitCmd:
		return timedWait(t, args[3], false)
	case futexLockPI:
		return absWait(t, args[3], unix.CLOCK_REALTIME)
	case futexWaitBitset, futexWaitReqPI, futexLockPI2:
		return absWait(t, args[3], clock)
	}
	return t // a wake or requeue does not sleep for long
}

// timedWait is a wait whose timeout is a relative timespec (or timeval)
// at addr; NULL waits forever.
func timedWait(t Thread, addr uint64, timeval bool) Thread {
	if addr == 0 {
		t.Kind = Wait
		return t
	}
	sec, frac, ok := readPair(t.Pid, addr)
	if !ok {
		return t
	}
	if timeval {
		frac *= 1000
	}
	t.Kind, t.Timeout = Wait, max(0, time.Duration(sec)*time.Second+time.Duration(frac))
	return t
}

// absWait is a wait until an absolute time on clock, at addr; NULL waits
// forever.
func absWait(t Thread, addr uint64, clock int32) Thread {
	if addr == 0 {
		t.Kind = Wait
		return t
	}
	sec, nsec, ok := readPair(t.Pid, addr)
	var now unix.Timespec
	if !ok || unix.ClockGettime(clock, &now) != nil {
		return t
	}
	left := time.Duration(sec-now.Sec)*time.Second + time.Duration(nsec-now.Nsec)
	t.Kind, t.Timeout = Wait, max(0, left)
	return t
}

// readPair reads two int64s (a timespec or a timeval on 64-bit Linux) at
// addr in pid's memory, which a parent may read.
func readPair(pid int, addr uint64) (a, b int64, ok bool) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/mem", pid))
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	var buf [16]byte
	if addr > 1<<62 {
		return 0, 0, false
	}
	if _, err := f.ReadAt(buf[:], int64(addr)); err != nil {
		return 0, 0, false
	}
	return int64(binary.LittleEndian.Uint64(buf[:8])), int64(binary.LittleEndian.Uint64(buf[8:])), true
}
