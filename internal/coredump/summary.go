package coredump

import (
	"fmt"
	"slices"
	"strings"
)

// summaryFrames is how many crashed-thread frames Summary shows.
const summaryFrames = 8

// Summary renders the report in a few lines for a model: who crashed, how,
// where, and why if the report says.
//
//	asi [96535] crashed: EXC_CRASH (SIGABRT)
//	ASI: *** Terminating app due to uncaught exception 'NSRangeException', ...
//	thread 0 (com.apple.main-thread) crashed:
//	  #0 __pthread_kill + 8 (libsystem_kernel.dylib)
//	  ...
func (r *Report) Summary() string {
	var b strings.Builder
	b.WriteString(firstNonEmpty(r.Process, "unknown process"))
	if r.Pid != 0 {
		fmt.Fprintf(&b, " [%d]", r.Pid)
	}
	b.WriteString(" crashed: ")
	b.WriteString(r.exceptionText())
	if r.ExceptionCodes != "" {
		fmt.Fprintf(&b, ", codes %s", r.ExceptionCodes)
	}
	b.WriteByte('\n')
	if r.TerminationNamespace != "" || r.TerminationReason != "" {
		fmt.Fprintf(&b, "termination: %s\n", strings.TrimSpace(strings.Join([]string{
			r.TerminationNamespace, codeText(r.TerminationCode), r.TerminationReason}, " ")))
	}
	asi := slices.Compact(slices.Clone(r.ASI))
	for i, m := range asi {
		if i == 3 {
			fmt.Fprintf(&b, "ASI: (%d more)\n", len(asi)-i)
			break
		}
		fmt.Fprintf(&b, "ASI: %s\n", m)
	}
	if t := r.Crashed(); t != nil {
		fmt.Fprintf(&b, "thread %d", t.Index)
		if q := firstNonEmpty(t.Queue, t.Name); q != "" {
			fmt.Fprintf(&b, " (%s)", q)
		}
		b.WriteString(" crashed:\n")
		writeFrames(&b, t.Frames)
	} else {
		b.WriteString("no crashed thread in the report\n")
	}
	if len(r.LastExceptionBacktrace) > 0 {
		b.WriteString("last exception backtrace:\n")
		writeFrames(&b, r.LastExceptionBacktrace)
	}
	return strings.TrimRight(b.String(), "\n")
}

func (r *Report) exceptionText() string {
	switch {
	case r.ExceptionType != "" && r.Signal != "" && r.ExceptionType != r.Signal:
		return r.ExceptionType + " (" + r.Signal + ")"
	case r.ExceptionType != "":
		return r.ExceptionType
	case r.Signal != "":
		return r.Signal
	}
	return "unknown exception"
}

func codeText(c string) string {
	if c == "" {
		return ""
	}
	return "code " + c
}

func writeFrames(b *strings.Builder, frames []Frame) {
	for i, f := range frames {
		if i == summaryFrames {
			fmt.Fprintf(b, "  ... %d more frames\n", len(frames)-i)
			return
		}
		fmt.Fprintf(b, "  %s\n", f)
	}
}
