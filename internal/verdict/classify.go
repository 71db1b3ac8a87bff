package verdict

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/triage-dev/triage/internal/proc"
)

// Input is everything Classify weighs.
type Input struct {
	Result *proc.Result // required
	Scan   *Scanner     // the run's output scanner; nil when output was not scanned
	// Evidence found by others (a core dump, a crash report).
	Evidence []Evidence
	// CrashFrame from a debugger or core analysis; wins over what the output shows.
	CrashFrame *Frame
	Program    string // the program as the user named it, for hints
	OutputID   string // the stored output, for output_search hints
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
		v.CrashFrame = in.Scan.Frame()
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
		v.Status, v.CrashType, v.Signal = StatusCrash, SignalCrashType(sig), proc.SignalName(sig)
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

func signalStatus(r *proc.Result, primary *Indicator) (Status, CrashType) {
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

// verdictLine renders the one-line verdict.
func verdictLine(v Verdict, r *proc.Result, primary *Indicator, scan *Scanner) string {
	var b strings.Builder
	switch v.Status {
	case StatusSuccess:
		fmt.Fprintf(&b, "SUCCEEDED (exit 0)")
		return b.String()
	case StatusTimeout:
		if r.TimedOut {
			d := r.Timeout
			if d == 0 {
				d = roundDuration(r.Duration)
			}
			fmt.Fprintf(&b, "TIMED OUT after %s — process group killed", d)
		} else {
			fmt.Fprintf(&b, "TIMED OUT (exit 124 from timeout(1))")
		}
	case StatusInterrupted:
		if r.Cancelled {
			fmt.Fprintf(&b, "INTERRUPTED after %s — process group stopped", roundDuration(r.Duration))
		} else {
			fmt.Fprintf(&b, "INTERRUPTED (%s)", r.SignalName)
		}
	case StatusSilentFailure:
		fmt.Fprintf(&b, "FAILED SILENTLY (exit %d, no output)", r.ExitCode)
	case StatusFailure:
		fmt.Fprintf(&b, "FAILED (exit %d)", r.ExitCode)
	case StatusCrash:
		b.WriteString("CRASHED (")
		switch {
		case r.Signaled && v.CrashType == CrashOOMKilled:
			b.WriteString("SIGKILL, out of memory")
		case r.Signaled:
			b.WriteString(r.SignalName)
			if primary != nil && primary.Crash && v.CrashType == primary.Type {
				b.WriteString(", " + primary.Name)
			}
		case v.Signal != "":
			fmt.Fprintf(&b, "%s, exit %d from a shell", v.Signal, r.ExitCode)
		case r.ExitCode == 0:
			fmt.Fprintf(&b, "exit 0, but output shows: %s", primary.Name)
		default:
			fmt.Fprintf(&b, "%s, exit %d", primary.Name, r.ExitCode)
		}
		b.WriteString(")")
		if f := v.CrashFrame; f != nil {
			b.WriteString(" in ")
			if f.Function != "" {
				b.WriteString(f.Function + " at ")
			}
			fmt.Fprintf(&b, "%s:%d", filepath.Base(f.File), f.Line)
		}
	}
	var notes []string
	if ev := evidenceOf(v.Evidence, "core_dump"); ev != nil {
		notes = append(notes, "core dump captured")
	} else if r.CoreDumped {
		notes = append(notes, "core dumped (not yet located)")
	}
	if v.ClaimedSuccess != "" && v.Status == StatusCrash {
		notes = append(notes, fmt.Sprintf("though output claimed %q", v.ClaimedSuccess))
	}
	if d := detail(v, primary, scan); d != "" {
		notes = append(notes, d)
	}
	if len(notes) == 0 && v.Meaning != "" && v.Status != StatusTimeout && v.Status != StatusInterrupted {
		notes = append(notes, v.Meaning)
	}
	for i, n := range notes {
		if i == 0 {
			b.WriteString(" — ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(clip(n, 160))
	}
	return b.String()
}

// detail is the output line that best explains a failure or crash.
func detail(v Verdict, primary *Indicator, scan *Scanner) string {
	if v.Status != StatusFailure && v.Status != StatusCrash {
		return ""
	}
	switch {
	case primary != nil && primary.Name == "Python traceback" && scan != nil:
		return scan.LastLine() // the exception, after the traceback
	case primary != nil:
		return primary.Line
	case v.Status == StatusFailure && scan != nil && scan.LastLine() != "":
		return "last line: " + scan.LastLine()
	}
	return ""
}

func evidenceOf(evs []Evidence, kind string) *Evidence {
	for i := range evs {
		if evs[i].Kind == kind {
			return &evs[i]
		}
	}
	return nil
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Millisecond)
	}
	return d
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// hints names the next triage calls.
func hints(v Verdict, in Input, primary *Indicator) []Hint {
	if v.Status == StatusSuccess {
		return nil
	}
	var hs []Hint
	if ev := evidenceOf(v.Evidence, "core_dump"); ev != nil {
		hs = append(hs, Hint{Text: "open the core dump to see the crashing thread's stack and variables",
			Tool: "dump_open", Args: map[string]any{"path": ev.Path}})
	}
	if ev := evidenceOf(v.Evidence, "crash_report"); ev != nil {
		hs = append(hs, Hint{Text: "read the crash report", Tool: "crash_report_show", Args: map[string]any{"path": ev.Path}})
	}
	program := in.Program
	if program == "" && len(in.Result.Argv) > 0 {
		program = in.Result.Argv[0]
	}
	switch v.Status {
	case StatusCrash:
		if evidenceOf(v.Evidence, "core_dump") == nil && program != "" {
			hs = append(hs, Hint{Text: "re-run under the debugger to stop at the crash",
				Tool: "debug_attach", Args: map[string]any{"program": program, "args": argsOf(in.Result)}})
		}
	case StatusTimeout:
		if program != "" {
			hs = append(hs, Hint{Text: "re-run under the debugger and pause it to see where it hangs, or raise timeout_s",
				Tool: "debug_attach", Args: map[string]any{"program": program, "args": argsOf(in.Result)}})
		}
	case StatusSilentFailure:
		text := "the program exited without a word"
		if v.Meaning != "" {
			text += fmt.Sprintf(" (exit %d: %s)", v.ExitCode, v.Meaning)
		}
		hs = append(hs, Hint{Text: text + "; re-run under the debugger with a breakpoint on exit",
			Tool: "debug_attach", Args: map[string]any{"program": program, "args": argsOf(in.Result)}})
	}
	if in.OutputID != "" && v.Status != StatusSilentFailure {
		pattern := `(?i)error|fail|fatal|panic`
		if primary != nil {
			pattern = regexp.QuoteMeta(primaryKey(primary))
		}
		hs = append(hs, Hint{Text: "search the full output for the first error",
			Tool: "output_search", Args: map[string]any{"output_id": in.OutputID, "pattern": pattern}})
	}
	return hs
}

func argsOf(r *proc.Result) []string {
	if len(r.Argv) <= 1 {
		return []string{}
	}
	return r.Argv[1:]
}

// primaryKey is the literal that identifies an indicator's lines.
func primaryKey(in *Indicator) string {
	for _, p := range patterns {
		if p.name == in.Name && p.pack == in.Pack {
			return strings.TrimSpace(p.key)
		}
	}
	return in.Name
}
