package verdict

import (
	"syscall"

	"github.com/triage-dev/triage/internal/spawn"
)

// Input is everything Classify weighs.
type Input struct {
	Result *spawn.Result // required
	Scan   *Scanner      // the run's output scanner; nil when output was not scanned
	// Evidence found by others (a core dump, a crash report).
	Evidence []Evidence
	// CrashFrame from a debugger or core analysis; wins over what the output shows.
	CrashFrame *Frame
	Program    string // the program as the user named it, for hints
	// ProjectDir is the project's directory, when known: the crash frame
	// read from the output is the first in its code (see crashsite).
	ProjectDir string
	OutputID   string // the stored output, for output_search hints
	// SSHHost is the host the program ran on, "" for this one: the hints
	// that open its core or run it again say so.
	SSHHost string
}

// Classify decides the verdict. Precedence, first match wins:
//
//  1. we cut the run short: timeout, then cancellation;
//  2. the kernel killed it with a signal: crash (SIGINT/SIGTERM/SIGHUP:
//     interrupted), with a runtime's indicator refining abort/trap signals;
//  3. a decisive indicator in the output (panic, sanitizer, runner crash):
//     crash, even after exit 0;
//  4. exit 128+N from a shell whose child died of a crash signal: crash;
//     124 (timeout(1)): timeout;
//  5. exit 0: success;
//  6. a non-zero exit with no output at all: silent_failure;
//  7. otherwise failure, typed by the first explanatory indicator.
func Classify(in Input) Verdict {
	r := in.Result
	v := Verdict{ExitCode: r.ExitCode, CrashType: CrashNone, Evidence: append([]Evidence(nil), in.Evidence...)}
	var primary *Indicator // the indicator that names the problem
	if in.Scan != nil {
		v.Indicators = in.Scan.Indicators()
		v.Evidence = append(v.Evidence, in.Scan.Evidence()...)
		primary = firstIndicator(v.Indicators, true)
		if primary == nil {
			primary = firstIndicator(v.Indicators, false)
		}
	}
	v.CrashFrame = in.CrashFrame
	if v.CrashFrame == nil && in.Scan != nil {
		v.CrashFrame = in.Scan.CrashFrame(in.ProjectDir)
	}
	if r.Signaled {
		v.Signal = r.SignalName
		v.Meaning = SignalMeaning(r.Signal)
	} else {
		v.Meaning = ExitCodeMeaning(r.ExitCode)
	}
	decisive := primary != nil && primary.Crash

	switch {
	case r.TimedOut:
		v.Status, v.CrashType = StatusTimeout, CrashTimeout
	case r.Cancelled:
		v.Status, v.CrashType = StatusInterrupted, CrashInterrupted
	case r.Signaled:
		v.Status, v.CrashType = signalStatus(r, primary)
	case decisive:
		v.Status, v.CrashType = StatusCrash, primary.Type
	case shellCrash(r.ExitCode):
		sig, _ := shellSignal(r.ExitCode)
		v.Status, v.CrashType, v.Signal = StatusCrash, SignalCrashType(sig), spawn.SignalName(sig)
	case r.ExitCode == 124:
		v.Status, v.CrashType = StatusTimeout, CrashTimeout
	case r.Exited && r.ExitCode == 0:
		v.Status = StatusSuccess
	case in.Scan != nil && in.Scan.NonBlank() == 0:
		v.Status, v.CrashType = StatusSilentFailure, CrashUnknown
	default:
		v.Status = StatusFailure
		if primary != nil {
			v.CrashType = primary.Type
		}
	}
	if v.Status != StatusSuccess && in.Scan != nil {
		v.ClaimedSuccess = in.Scan.ClaimedSuccess()
	}
	v.Line = verdictLine(v, r, primary, in.Scan)
	v.Hints = hints(v, in, primary)
	return v
}

// firstIndicator returns the earliest indicator (by line) that is decisive
// (crash) or explanatory (!crash).
func firstIndicator(ins []Indicator, crash bool) *Indicator {
	var best *Indicator
	for i := range ins {
		in := &ins[i]
		if in.Crash == crash && (best == nil || in.LineNo < best.LineNo) {
			best = in
		}
	}
	return best
}

func signalStatus(r *spawn.Result, primary *Indicator) (Status, CrashType) {
	switch r.Signal {
	case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP:
		return StatusInterrupted, SignalCrashType(r.Signal)
	case syscall.SIGKILL:
		if r.OOMKilled {
			return StatusCrash, CrashOOMKilled
		}
	case syscall.SIGABRT, syscall.SIGILL, syscall.SIGTRAP:
		// Runtimes abort or trap on purpose; their message says more than
		// the signal (a Swift fatal error, a Rust panic, a sanitizer).
		if primary != nil && primary.Crash {
			switch primary.Type {
			case CrashFatalError, CrashPanic, CrashSanitizer, CrashTestRunnerCrash:
				return StatusCrash, primary.Type
			}
		}
	}
	return StatusCrash, SignalCrashType(r.Signal)
}

// shellCrash reports an exit status that a shell uses for a child killed
// by a crash signal (139 = 128+SIGSEGV, ...). 130/143 (SIGINT/SIGTERM) are
// left to be plain failures: a script passing on Ctrl-C is not a crash.
func shellCrash(code int) bool {
	sig, ok := shellSignal(code)
	if !ok {
		return false
	}
	switch SignalCrashType(sig) {
	case CrashSegmentationFault, CrashBusError, CrashAbort, CrashIllegalInstruction, CrashFPException, CrashKilled:
		return true
	}
	return false
}
