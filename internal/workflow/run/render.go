package run

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/crashsite"
	"github.com/triage-dev/triage/internal/excerpt"
	"github.com/triage-dev/triage/internal/hang"
	"github.com/triage-dev/triage/internal/verdict"
)

// maxFramesShown bounds the backtrace in the text; the structured output has
// every frame.
const maxFramesShown = 8

// renderText is what a run's answer says: the verdict line, how the
// program ended, what the output and the core showed, the next calls, and
// the excerpt of the output.
func renderText(o *capture.Outcome, stuck *hang.Report, c catalog.Captured, ex excerpt.Excerpt) string {
	var b strings.Builder
	v := o.Verdict
	b.WriteString(v.Line)
	b.WriteByte('\n')
	writeEnding(&b, o)
	writeIndicators(&b, v.Indicators)
	if len(v.Evidence) > 0 {
		b.WriteString("evidence:\n")
		for _, e := range v.Evidence {
			writeEvidence(&b, e)
		}
	}
	writeBacktrace(&b, o.Trace)
	writeSite(&b, o.Site)
	if stuck != nil {
		stuck.WriteStuck(&b)
	}
	writeHints(&b, v.Hints)
	catalog.WriteExcerpt(&b, c, ex.Text)
	return b.String()
}

// writeEnding says how the process ended: its signal or exit status, its
// pid and its wall time.
func writeEnding(b *strings.Builder, o *capture.Outcome) {
	r := o.Result
	switch {
	case r.Signaled:
		fmt.Fprintf(b, "signal %s", r.SignalName)
		if m := verdict.SignalMeaning(r.Signal); m != "" {
			fmt.Fprintf(b, " (%s)", m)
		}
	default:
		fmt.Fprintf(b, "exit %d", r.ExitCode)
		if o.Verdict.Meaning != "" {
			fmt.Fprintf(b, " (%s)", o.Verdict.Meaning)
		}
	}
	fmt.Fprintf(b, "; pid %d; %s\n", r.Pid, r.Duration.Round(time.Millisecond))
}

func writeIndicators(b *strings.Builder, inds []verdict.Indicator) {
	if len(inds) == 0 {
		return
	}
	b.WriteString("indicators:\n")
	for i, ind := range inds {
		if i == 5 {
			fmt.Fprintf(b, "  … %d more in the structured output\n", len(inds)-i)
			break
		}
		fmt.Fprintf(b, "  %s (line %d): %s\n", ind.Name, ind.LineNo, ind.Line)
	}
}

func writeBacktrace(b *strings.Builder, tr *coredump.Trace) {
	if tr == nil || len(tr.Frames) == 0 {
		return
	}
	fmt.Fprintf(b, "backtrace (%s):\n", tr.Debugger)
	for i, f := range tr.Frames {
		if i == maxFramesShown {
			fmt.Fprintf(b, "  … %d more frames\n", len(tr.Frames)-i)
			break
		}
		fmt.Fprintf(b, "  %s\n", f.String())
	}
}

func writeHints(b *strings.Builder, hints []verdict.Hint) {
	if len(hints) == 0 {
		return
	}
	b.WriteString("next:\n")
	for _, h := range hints {
		if h.Tool != "" {
			fmt.Fprintf(b, "  - %s: %s\n", h.Text, catalog.NextCall(h.Tool, h.Args))
		} else {
			fmt.Fprintf(b, "  - %s\n", h.Text)
		}
	}
}

func writeEvidence(w io.Writer, e verdict.Evidence) {
	kind := strings.ReplaceAll(e.Kind, "_", " ")
	switch {
	case e.Path != "" && e.Summary != "":
		fmt.Fprintf(w, "  %s: %s — %s\n", kind, e.Path, firstLine(e.Summary))
	case e.Path != "":
		fmt.Fprintf(w, "  %s: %s\n", kind, e.Path)
	default:
		fmt.Fprintf(w, "  %s: %s\n", kind, firstLine(e.Summary))
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// writeSite shows the crash site, in the one text every answer gives it
// (crashsite's, which dump_report stores too).
func writeSite(b *strings.Builder, s *crashsite.Site) {
	if s != nil {
		s.WriteText(b)
	}
}
