//go:build !linux

package spawn

import "syscall"

// sysProcAttr puts a child in its own process group. Other systems have no
// parent-death signal.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// onSpawnThread runs fork; only Linux ties children to a thread.
func onSpawnThread(fork func()) { fork() }
