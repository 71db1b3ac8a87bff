package spawn

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
)

// HardwareWatchpoints reports whether this host delivers hardware
// watchpoints, probed once per process: some virtual machines (a
// Firecracker guest) accept debug registers but never raise the trap, so
// a debugger's watchpoint silently never fires. why says what the probe saw.
func HardwareWatchpoints() (ok bool, why string) {
	r := hwProbe()
	return r.ok, r.why
}

type hwResult struct {
	ok  bool
	why string
}

var hwProbe = sync.OnceValue(func() hwResult {
	var r hwResult
	forkMu.Lock()
	defer forkMu.Unlock()
	onSpawnThread(func() { r = probeDebugRegisters() }) // ptrace requests must come from the tracing thread
	return r
})

// debugRegs is offsetof(struct user, u_debugreg) on x86-64.
const debugRegs = 848

// probeDebugRegisters starts `true` traced, stopped at its exec; watches
// for writes the four words below its stack pointer (its first call or
// push writes one of them); and lets it run: a trap with DR6 naming a
// watch is delivery, an exit is none. The child is killed and reaped.
func probeDebugRegisters() hwResult {
	path, err := exec.LookPath("true")
	if err != nil {
		return hwResult{why: "no `true` to probe with: " + err.Error()}
	}
	pid, err := syscall.ForkExec(path, []string{"true"}, &syscall.ProcAttr{Sys: &syscall.SysProcAttr{Ptrace: true, Setpgid: true, Pdeathsig: syscall.SIGKILL}})
	if err != nil {
		return hwResult{why: "starting a traced probe: " + err.Error()}
	}
	defer func() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
	}()
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil || !ws.Stopped() {
		return hwResult{why: fmt.Sprintf("the traced probe did not stop at its exec (%v, %v)", ws, err)}
	}
	var regs syscall.PtraceRegs
	if err := syscall.PtraceGetRegs(pid, &regs); err != nil {
		return hwResult{why: "reading the probe's registers: " + err.Error()}
	}
	for i := uint64(0); i < 4; i++ {
		if err := pokeUser(pid, debugRegs+8*i, regs.Rsp-8*(i+1)); err != nil {
			return hwResult{why: fmt.Sprintf("setting DR%d: %v", i, err)}
		}
	}
	// DR7: L0-L3 enabled; each 8 bytes (LEN 10), on write (RW 01).
	if err := pokeUser(pid, debugRegs+8*7, 0x99990055); err != nil {
		return hwResult{why: "setting DR7: " + err.Error()}
	}
	if err := syscall.PtraceCont(pid, 0); err != nil {
		return hwResult{why: "resuming the probe: " + err.Error()}
	}
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		return hwResult{why: "waiting for the probe: " + err.Error()}
	}
	if !ws.Stopped() || ws.StopSignal() != syscall.SIGTRAP {
		return hwResult{why: fmt.Sprintf("a write under a hardware watchpoint raised no trap (the probe ran to %v)", describe(ws))}
	}
	return hwResult{ok: true, why: "a write under a hardware watchpoint trapped"}
}

func pokeUser(pid int, off, v uint64) error {
	_, _, e := syscall.Syscall6(syscall.SYS_PTRACE, syscall.PTRACE_POKEUSR, uintptr(pid), uintptr(off), uintptr(v), 0, 0)
	if e != 0 {
		return errors.New(e.Error())
	}
	return nil
}

func describe(ws syscall.WaitStatus) string {
	switch {
	case ws.Exited():
		return fmt.Sprintf("exit %d", ws.ExitStatus())
	case ws.Signaled():
		return "signal " + SignalName(ws.Signal())
	case ws.Stopped():
		return "a stop by " + SignalName(ws.StopSignal())
	}
	return fmt.Sprint(ws)
}
