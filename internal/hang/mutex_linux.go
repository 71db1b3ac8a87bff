package hang

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// futexNR is the futex syscall's number on this architecture; 0 where it
// is not known, and no mutex's owner is read.
var futexNR = map[string]int{"amd64": 202, "arm64": 98, "riscv64": 98, "loong64": 98, "386": 240}[runtime.GOARCH]

// maxFutexReads bounds the threads whose syscall is read: a program of
// thousands of sleeping threads costs a file read each.
const maxFutexReads = 1024

// futexWaits is, for the sleeping threads of pid, the address of the
// futex each waits on. /proc/PID/task/TID/syscall gives a blocked
// thread's syscall and arguments without stopping it; it is read before
// the debugger attaches, whose stop interrupts the wait.
func futexWaits(pid int, states map[int]byte) map[int]uint64 {
	if futexNR == 0 {
		return nil
	}
	out := make(map[int]uint64)
	n := 0
	for tid, st := range states {
		if st != 'S' {
			continue
		}
		if n++; n > maxFutexReads {
			break
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/syscall", pid, tid))
		if err != nil {
			continue
		}
		if addr, ok := futexWaitAddr(string(b)); ok {
			out[tid] = addr
		}
	}
	return out
}

// futexWaitAddr reads "NR ARG0 ARG1 …": a futex wait's address (ARG0)
// when the operation (ARG1, without its private and clock flags) is a
// wait or a priority-inheritance lock.
func futexWaitAddr(s string) (uint64, bool) {
	f := strings.Fields(s)
	if len(f) < 3 || f[0] != strconv.Itoa(futexNR) {
		return 0, false
	}
	addr, err1 := strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 64)
	op, err2 := strconv.ParseUint(strings.TrimPrefix(f[2], "0x"), 16, 64)
	if err1 != nil || err2 != nil || addr == 0 {
		return 0, false
	}
	switch op & 0x7f { // FUTEX_CMD_MASK
	case 0, 6, 9, 13: // FUTEX_WAIT, FUTEX_LOCK_PI, FUTEX_WAIT_BITSET, FUTEX_LOCK_PI2
		return addr, true
	}
	return 0, false
}

// curWriterAt is, on each architecture, the offset of __cur_writer in
// glibc's pthread_rwlock_t (since 2.25: __readers, __writers,
// __wrphase_futex, __writers_futex, two pads, then on x86_64 the writer's
// TID; elsewhere four bytes of flags first); 0 where it is not known.
var curWriterAt = map[string]int64{"amd64": 24, "arm64": 28, "riscv64": 28, "loong64": 28}[runtime.GOARCH]

// rwlockWriter reads the writer holding the glibc pthread_rwlock_t whose
// futex a waiter sleeps on at addr: a reader (and a writer while readers
// hold it) sleeps on __wrphase_futex (offset 8), a writer behind a writer
// on __writers_futex (offset 12), so both places are tried, the writer's
// first when the waiter writes. A candidate counts only when live is true
// of it (a thread of the process); 0 when none is.
func rwlockWriter(pid int, addr uint64, writer bool, live func(int) bool) int {
	if curWriterAt == 0 {
		return 0
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/mem", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	bases := []uint64{addr - 8, addr - 12}
	if writer {
		bases[0], bases[1] = bases[1], bases[0]
	}
	for _, base := range bases {
		var b [4]byte
		if _, err := f.ReadAt(b[:], int64(base)+curWriterAt); err != nil {
			continue
		}
		if w := int(int32(binary.NativeEndian.Uint32(b[:]))); w > 0 && live(w) {
			return w
		}
	}
	return 0
}

// mutexOwner reads the owner of the glibc pthread_mutex_t at addr in pid's
// memory: a waiter in pthread_mutex_lock sleeps on the mutex's lock word
// (__data.__lock, at offset 0), and the holder's TID is __data.__owner,
// two ints further on every glibc Linux architecture. 0 when the lock
// word says unlocked or the memory cannot be read. /proc/PID/mem is read
// with no ptrace stop, as the stall watch does.
func mutexOwner(pid int, addr uint64) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/mem", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	var b [12]byte
	if _, err := f.ReadAt(b[:], int64(addr)); err != nil {
		return 0
	}
	lock, owner := int32(binary.NativeEndian.Uint32(b[0:])), int32(binary.NativeEndian.Uint32(b[8:]))
	if lock == 0 || owner <= 0 {
		return 0
	}
	return int(owner)
}
