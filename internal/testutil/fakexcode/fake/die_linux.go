package main

import (
	"os"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// kernelSigaction is struct sigaction as the rt_sigaction system call takes
// it on amd64 and arm64: the zero value restores SIG_DFL.
type kernelSigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

// die kills the fake with the named signal. The Go runtime ignores a
// SIGSEGV sent by kill (it only handles faults), so the default action is
// restored first: the parent sees a death by signal, as with a real crash.
func die(name string) {
	sigs := map[string]syscall.Signal{"SIGSEGV": syscall.SIGSEGV, "SIGABRT": syscall.SIGABRT, "SIGKILL": syscall.SIGKILL, "SIGBUS": syscall.SIGBUS}
	sig, ok := sigs[strings.ToUpper(name)]
	if !ok {
		fail(70, "fake: unknown signal %q", name)
	}
	var dfl kernelSigaction
	syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
	syscall.Kill(os.Getpid(), sig)
	time.Sleep(time.Minute) // the signal is on its way
}
