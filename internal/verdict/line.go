package verdict

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/textclip"
)

// verdictLine renders the one-line verdict: a head saying what happened,
// then notes (evidence, the line that explains it), e.g.
// "CRASHED (Go panic, exit 2) in main.main at x.go:7 — panic: boom".
func verdictLine(v Verdict, r *spawn.Result, primary *Indicator, scan *Scanner) string {
	var b strings.Builder
	b.WriteString(head(v, r, primary))
	if v.Status == StatusSuccess {
		return b.String()
	}
	for i, n := range notes(v, r, primary, scan) {
		if i == 0 {
			b.WriteString(" — ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(clip(n, 160))
	}
	return b.String()
}

func head(v Verdict, r *spawn.Result, primary *Indicator) string {
	switch v.Status {
	case StatusSuccess:
		return "SUCCEEDED (exit 0)"
	case StatusTimeout:
		if !r.TimedOut {
			return "TIMED OUT (exit 124 from timeout(1))"
		}
		d := r.Timeout
		if d == 0 {
			d = roundDuration(r.Duration)
		}
		return fmt.Sprintf("TIMED OUT after %s — process group killed", d)
	case StatusInterrupted:
		if r.Cancelled {
			return fmt.Sprintf("INTERRUPTED after %s — process group stopped", roundDuration(r.Duration))
		}
		return fmt.Sprintf("INTERRUPTED (%s)", r.SignalName)
	case StatusSilentFailure:
		return fmt.Sprintf("FAILED SILENTLY (exit %d, no output)", r.ExitCode)
	case StatusCrash:
		return crashHead(v, r, primary)
	}
	return fmt.Sprintf("FAILED (exit %d)", r.ExitCode)
}

// crashHead says what killed the process and, when known, where.
func crashHead(v Verdict, r *spawn.Result, primary *Indicator) string {
	var why string
	switch {
	case r.Signaled && v.CrashType == CrashOOMKilled:
		why = "SIGKILL, out of memory"
	case r.Signaled && primary != nil && primary.Crash && v.CrashType == primary.Type:
		why = r.SignalName + ", " + primary.Name
	case r.Signaled:
		why = r.SignalName
	case v.Signal != "":
		why = fmt.Sprintf("%s, exit %d from a shell", v.Signal, r.ExitCode)
	case r.ExitCode == 0:
		why = "exit 0, but output shows: " + primary.Name
	default:
		why = fmt.Sprintf("%s, exit %d", primary.Name, r.ExitCode)
	}
	s := "CRASHED (" + why + ")"
	if f := v.CrashFrame; f != nil {
		s += FrameText(f)
	}
	return s
}

func notes(v Verdict, r *spawn.Result, primary *Indicator, scan *Scanner) []string {
	var ns []string
	if evidenceOf(v.Evidence, "core_dump") != nil {
		ns = append(ns, "core dump captured")
	} else if r.CoreDumped {
		ns = append(ns, "core dumped (not yet located)")
	}
	if v.ClaimedSuccess != "" && v.Status == StatusCrash {
		ns = append(ns, fmt.Sprintf("though output claimed %q", v.ClaimedSuccess))
	}
	if d := detail(v, primary, scan); d != "" {
		ns = append(ns, d)
	}
	if len(ns) == 0 && v.Meaning != "" && v.Status != StatusTimeout && v.Status != StatusInterrupted {
		ns = append(ns, v.Meaning)
	}
	return ns
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

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Millisecond)
	}
	return d
}

func clip(s string, n int) string { return textclip.String(strings.TrimSpace(s), n) }

// FrameText says where a crash happened, as the verdict line does:
// " in main.write at main.go:11", " in lib.rs:170" when the function is not
// known, " in crash_here" when the source is not; "" for nothing known.
func FrameText(f *Frame) string {
	var s string
	if f.Function != "" {
		s = " in " + f.Function
	}
	switch {
	case f.File == "":
		return s
	case s == "":
		s = " in " + filepath.Base(f.File)
	default:
		s += " at " + filepath.Base(f.File)
	}
	if f.Line > 0 {
		s += fmt.Sprintf(":%d", f.Line)
	}
	return s
}
