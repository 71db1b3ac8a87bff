package run

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/excerpt"
	"github.com/triage-dev/triage/internal/runner"
	"github.com/triage-dev/triage/internal/verdict"
)

// maxFramesShown bounds the backtrace in the text; the structured output has
// every frame.
const maxFramesShown = 8

func renderText(out RunOutput, o *runner.Outcome, ex excerpt.Excerpt) string {
	var b strings.Builder
	v := out.Verdict
	b.WriteString(v.Line)
	b.WriteByte('\n')
	r := o.Result
	switch {
	case r.Signaled:
		fmt.Fprintf(&b, "signal %s", r.SignalName)
		if m := verdict.SignalMeaning(r.Signal); m != "" {
			fmt.Fprintf(&b, " (%s)", m)
		}
	default:
		fmt.Fprintf(&b, "exit %d", r.ExitCode)
		if v.Meaning != "" {
			fmt.Fprintf(&b, " (%s)", v.Meaning)
		}
	}
	fmt.Fprintf(&b, "; pid %d; %s\n", r.Pid, r.Duration.Round(time.Millisecond))
	if len(v.Indicators) > 0 {
		b.WriteString("indicators:\n")
		for i, ind := range v.Indicators {
			if i == 5 {
				fmt.Fprintf(&b, "  … %d more in the structured output\n", len(v.Indicators)-i)
				break
			}
			fmt.Fprintf(&b, "  %s (line %d): %s\n", ind.Name, ind.LineNo, ind.Line)
		}
	}
	if len(v.Evidence) > 0 {
		b.WriteString("evidence:\n")
		for _, e := range v.Evidence {
			writeEvidence(&b, e)
		}
	}
	if o.Trace != nil && len(o.Trace.Frames) > 0 {
		fmt.Fprintf(&b, "backtrace (%s):\n", o.Trace.Debugger)
		for i, f := range o.Trace.Frames {
			if i == maxFramesShown {
				fmt.Fprintf(&b, "  … %d more frames\n", len(o.Trace.Frames)-i)
				break
			}
			fmt.Fprintf(&b, "  %s\n", f.String())
		}
	}
	if out.Hang != nil {
		out.Hang.WriteStuck(&b)
	}
	if len(v.Hints) > 0 {
		b.WriteString("next:\n")
		for _, h := range v.Hints {
			if h.Tool != "" {
				fmt.Fprintf(&b, "  - %s: %s\n", h.Text, catalog.NextCall(h.Tool, h.Args))
			} else {
				fmt.Fprintf(&b, "  - %s\n", h.Text)
			}
		}
	}
	catalog.WriteExcerpt(&b, out.Captured, ex.Text)
	return b.String()
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
