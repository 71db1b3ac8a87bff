package verdict

import (
	"fmt"
	"syscall"

	"github.com/triage-dev/triage/internal/spawn"
)

type signalInfo struct {
	crash   CrashType
	meaning string
}

var signals = map[syscall.Signal]signalInfo{
	syscall.SIGSEGV: {CrashSegmentationFault, "invalid memory access (segmentation fault)"},
	syscall.SIGBUS:  {CrashBusError, "bus error: misaligned access or a mapped file that shrank"},
	syscall.SIGABRT: {CrashAbort, "abort(): an assertion, an uncaught C++ exception or a runtime that gave up"},
	syscall.SIGILL:  {CrashIllegalInstruction, "illegal instruction: a trap (__builtin_trap, Swift/Rust runtime check) or code built for another CPU"},
	syscall.SIGTRAP: {CrashIllegalInstruction, "trace/breakpoint trap: a trap instruction (Swift/Rust runtime check on arm64) or a stray breakpoint"},
	syscall.SIGFPE:  {CrashFPException, "arithmetic exception: integer division by zero or overflow"},
	syscall.SIGKILL: {CrashKilled, "killed by SIGKILL: the OOM killer, a timeout, or someone else"},
	syscall.SIGTERM: {CrashTerminated, "terminated by SIGTERM"},
	syscall.SIGINT:  {CrashInterrupted, "interrupted (SIGINT, Ctrl-C)"},
	syscall.SIGHUP:  {CrashTerminated, "hangup: its terminal or parent went away"},
	syscall.SIGQUIT: {CrashAbort, "quit (SIGQUIT): a requested core dump, or a Go program dumping its goroutines"},
	syscall.SIGSYS:  {CrashUnknown, "bad system call: blocked by seccomp or not supported by this kernel"},
	syscall.SIGPIPE: {CrashTerminated, "broken pipe: it wrote to a pipe nobody reads"},
	syscall.SIGXCPU: {CrashKilled, "CPU time limit exceeded (RLIMIT_CPU)"},
	syscall.SIGXFSZ: {CrashUnknown, "file size limit exceeded (RLIMIT_FSIZE)"},
	syscall.SIGALRM: {CrashTerminated, "alarm clock: an unhandled SIGALRM"},
	syscall.SIGUSR1: {CrashTerminated, "unhandled SIGUSR1"},
	syscall.SIGUSR2: {CrashTerminated, "unhandled SIGUSR2"},
}

// SignalMeaning explains a fatal signal in a few words.
func SignalMeaning(sig syscall.Signal) string {
	if in, ok := signals[sig]; ok {
		return in.meaning
	}
	return "killed by " + spawn.SignalName(sig)
}

// SignalCrashType maps a fatal signal to its crash type.
func SignalCrashType(sig syscall.Signal) CrashType {
	if in, ok := signals[sig]; ok {
		return in.crash
	}
	return CrashUnknown
}

var exitCodes = map[int]string{
	1:   "general failure",
	2:   "misuse of a command, or a Go program that panicked",
	64:  "EX_USAGE: command line usage error",
	65:  "EX_DATAERR: data format error (xcodebuild: build or test failure)",
	66:  "EX_NOINPUT: cannot open input",
	67:  "EX_NOUSER: addressee unknown",
	68:  "EX_NOHOST: host name unknown",
	69:  "EX_UNAVAILABLE: service unavailable",
	70:  "EX_SOFTWARE: internal software error",
	71:  "EX_OSERR: system error (cannot fork, ...)",
	72:  "EX_OSFILE: critical OS file missing",
	73:  "EX_CANTCREAT: cannot create output file",
	74:  "EX_IOERR: input/output error",
	75:  "EX_TEMPFAIL: temporary failure, retry later",
	76:  "EX_PROTOCOL: remote error in protocol",
	77:  "EX_NOPERM: permission denied",
	78:  "EX_CONFIG: configuration error",
	101: "a Rust program panicked",
	124: "timed out (timeout(1))",
	125: "timeout(1) or a container runtime itself failed",
	126: "command found but not executable",
	127: "command not found",
}

// ExitCodeMeaning explains an exit status by convention: sysexits.h,
// shells (126, 127, 128+N for a child killed by signal N), timeout(1) and
// language runtimes. It returns "" for codes with no common meaning.
func ExitCodeMeaning(code int) string {
	if m, ok := exitCodes[code]; ok {
		return m
	}
	if sig, ok := shellSignal(code); ok {
		return fmt.Sprintf("a shell reporting its child killed by %s: %s", spawn.SignalName(sig), SignalMeaning(sig))
	}
	return ""
}

// shellSignal decodes the shell convention exit = 128 + signal number for
// the signals that plausibly killed a child (not 128+0 or absurd numbers).
func shellSignal(code int) (syscall.Signal, bool) {
	if code <= 128 || code > 128+31 {
		return 0, false
	}
	sig := syscall.Signal(code - 128)
	if _, named := spawn.SignalByName(spawn.SignalName(sig)); !named {
		return 0, false
	}
	return sig, true
}
