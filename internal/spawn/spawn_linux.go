package spawn

import (
	"runtime"
	"sync"
	"syscall"
)

// sysProcAttr puts a child in its own process group and has the kernel kill
// it if triage dies without reaping it (SIGKILLed, say): a direct child never
// outlives the server. Its own descendants in other groups are not covered.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

var (
	spawnOnce sync.Once
	spawnReq  chan func()
)

// onSpawnThread runs fork on one OS thread that lives as long as triage.
// The kernel sends the death signal when the *thread* that forked a child
// exits, not the process; Go may retire an OS thread, so forking from an
// arbitrary one could kill a child early. A locked thread whose goroutine
// never returns is never retired.
func onSpawnThread(fork func()) {
	spawnOnce.Do(func() {
		spawnReq = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: the thread must outlive every child
			for f := range spawnReq {
				f()
			}
		}()
	})
	done := make(chan struct{})
	spawnReq <- func() { fork(); close(done) }
	<-done
}
