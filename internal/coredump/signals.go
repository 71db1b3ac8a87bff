package coredump

import "strconv"

// Linux signal numbers as a core records them (asm-generic numbering, which
// x86, arm and riscv share). Cores from other ABIs (mips, alpha, sparc)
// number a few signals differently; those print as "signal N".
var linuxSignalNames = [...]string{
	1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT",
	7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2",
	13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM", 16: "SIGSTKFLT", 17: "SIGCHLD", 18: "SIGCONT",
	19: "SIGSTOP", 20: "SIGTSTP", 21: "SIGTTIN", 22: "SIGTTOU", 23: "SIGURG", 24: "SIGXCPU",
	25: "SIGXFSZ", 26: "SIGVTALRM", 27: "SIGPROF", 28: "SIGWINCH", 29: "SIGIO", 30: "SIGPWR",
	31: "SIGSYS",
}

// SignalName names a Linux signal number ("SIGSEGV"), or "signal N".
func SignalName(sig int) string {
	if sig > 0 && sig < len(linuxSignalNames) {
		return linuxSignalNames[sig]
	}
	return "signal " + strconv.Itoa(sig)
}

// siCodeNames names the si_code values that tell how a fault happened.
var siCodeNames = map[[2]int]string{
	{11, 1}: "SEGV_MAPERR", {11, 2}: "SEGV_ACCERR", {11, 3}: "SEGV_BNDERR", {11, 4}: "SEGV_PKUERR",
	{7, 1}: "BUS_ADRALN", {7, 2}: "BUS_ADRERR", {7, 3}: "BUS_OBJERR", {7, 4}: "BUS_MCEERR_AR", {7, 5}: "BUS_MCEERR_AO",
	{4, 1}: "ILL_ILLOPC", {4, 2}: "ILL_ILLOPN", {4, 3}: "ILL_ILLADR", {4, 4}: "ILL_ILLTRP",
	{4, 5}: "ILL_PRVOPC", {4, 6}: "ILL_PRVREG", {4, 7}: "ILL_COPROC", {4, 8}: "ILL_BADSTK",
	{8, 1}: "FPE_INTDIV", {8, 2}: "FPE_INTOVF", {8, 3}: "FPE_FLTDIV", {8, 4}: "FPE_FLTOVF",
	{8, 5}: "FPE_FLTUND", {8, 6}: "FPE_FLTRES", {8, 7}: "FPE_FLTINV", {8, 8}: "FPE_FLTSUB",
	{5, 1}: "TRAP_BRKPT", {5, 2}: "TRAP_TRACE",
}

// siCodeName names si_code for the signal: a fault kind for a kernel-raised
// fault, or who sent it (SI_USER for kill, SI_TKILL for raise/abort).
func siCodeName(sig, code int) string {
	switch code {
	case 0:
		return "SI_USER"
	case -1:
		return "SI_QUEUE"
	case -6:
		return "SI_TKILL"
	case 0x80:
		return "SI_KERNEL"
	}
	if n, ok := siCodeNames[[2]int{sig, code}]; ok {
		return n
	}
	return "code " + strconv.Itoa(code)
}

// faultSignal reports whether si_addr is meaningful: a synchronous fault the
// kernel raised, not a signal someone sent.
func faultSignal(sig, code int) bool {
	switch sig {
	case 4, 7, 8, 11:
		return code > 0 && code != 0x80
	}
	return false
}
