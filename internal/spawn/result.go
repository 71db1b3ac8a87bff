package spawn

import (
	"fmt"
	"syscall"
	"time"
)

// Result is what a finished process left behind.
type Result struct {
	Pid  int
	Argv []string
	Path string // the executable actually run (argv[0] resolved via PATH)
	Dir  string

	Exited   bool // the leader called exit
	ExitCode int  // exit status; -1 when killed by a signal

	Signaled   bool
	Signal     syscall.Signal
	SignalName string // "SIGSEGV"; "" unless Signaled
	CoreDumped bool   // the kernel reported a core dump for the leader

	TimedOut  bool          // Spec.Timeout or the context's deadline passed, or Stalled; the group was terminated
	Timeout   time.Duration // Spec.Timeout, for reporting ("timed out after 5s")
	Cancelled bool          // the context was cancelled or Stop was called
	// Stalled: Spec.Stall found the group making no progress and the run
	// was ended before its time limit (TimedOut is set too).
	Stalled bool
	// OOMKilled is true when the leader died of SIGKILL while the kernel's
	// OOM-kill counter of our cgroup advanced. Best effort: Linux only, and
	// another process OOM-killed in the same cgroup at the same moment
	// would be counted too.
	OOMKilled bool
	// OrphansKilled is true when processes were still left in the
	// leader's process group after it exited; they were killed with SIGKILL.
	OrphansKilled bool

	Started  time.Time
	Duration time.Duration
	// PeakRSS is the peak resident set of the leader (and descendants it
	// waited for), in bytes; 0 when unknown, as on Linux when the figure
	// cannot be told from triage's own (see maxRSSBytes).
	PeakRSS int64
}

// Success reports a clean exit with status 0, not cut short by us.
func (r *Result) Success() bool {
	return r.Exited && r.ExitCode == 0 && !r.TimedOut && !r.Cancelled
}

func (r *Result) String() string {
	switch {
	case r.Signaled:
		return fmt.Sprintf("pid %d killed by %s", r.Pid, r.SignalName)
	case r.Exited:
		return fmt.Sprintf("pid %d exited with status %d", r.Pid, r.ExitCode)
	}
	return fmt.Sprintf("pid %d", r.Pid)
}

// SignalName returns the conventional name of sig ("SIGSEGV"), or
// "SIG<n>" for numbers without one on this OS.
func SignalName(sig syscall.Signal) string {
	if n, ok := signalNames[sig]; ok {
		return n
	}
	return fmt.Sprintf("SIG%d", int(sig))
}

// SignalByName is the inverse of SignalName for named signals.
func SignalByName(name string) (syscall.Signal, bool) {
	for s, n := range signalNames {
		if n == name {
			return s, true
		}
	}
	return 0, false
}

// signalNames covers the signals both Linux and macOS define; the per-OS
// files add the rest.
var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP:    "SIGHUP",
	syscall.SIGINT:    "SIGINT",
	syscall.SIGQUIT:   "SIGQUIT",
	syscall.SIGILL:    "SIGILL",
	syscall.SIGTRAP:   "SIGTRAP",
	syscall.SIGABRT:   "SIGABRT",
	syscall.SIGBUS:    "SIGBUS",
	syscall.SIGFPE:    "SIGFPE",
	syscall.SIGKILL:   "SIGKILL",
	syscall.SIGUSR1:   "SIGUSR1",
	syscall.SIGSEGV:   "SIGSEGV",
	syscall.SIGUSR2:   "SIGUSR2",
	syscall.SIGPIPE:   "SIGPIPE",
	syscall.SIGALRM:   "SIGALRM",
	syscall.SIGTERM:   "SIGTERM",
	syscall.SIGCHLD:   "SIGCHLD",
	syscall.SIGCONT:   "SIGCONT",
	syscall.SIGSTOP:   "SIGSTOP",
	syscall.SIGTSTP:   "SIGTSTP",
	syscall.SIGTTIN:   "SIGTTIN",
	syscall.SIGTTOU:   "SIGTTOU",
	syscall.SIGURG:    "SIGURG",
	syscall.SIGXCPU:   "SIGXCPU",
	syscall.SIGXFSZ:   "SIGXFSZ",
	syscall.SIGVTALRM: "SIGVTALRM",
	syscall.SIGPROF:   "SIGPROF",
	syscall.SIGWINCH:  "SIGWINCH",
	syscall.SIGIO:     "SIGIO",
	syscall.SIGSYS:    "SIGSYS",
}
