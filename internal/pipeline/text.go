package pipeline

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/textclip"
)

// WriteText writes what is known of the crash: its core (or why there is
// none), a missing debug info, the backtrace and the crash site.
func (c *TestCrash) WriteText(w *strings.Builder) {
	switch {
	case c.Core != "" && c.Program != "":
		fmt.Fprintf(w, "core: %s (program %s)\n", c.Core, c.Program)
	case c.Core != "":
		fmt.Fprintf(w, "core: %s\n", c.Core)
	case c.NoCore != "":
		fmt.Fprintf(w, "core: none — %s\n", c.NoCore)
	}
	if c.NoDebugInfo != nil {
		fmt.Fprintf(w, "%s\n", c.NoDebugInfo)
	}
	if len(c.Backtrace) > 0 {
		io.WriteString(w, "backtrace:\n")
	}
	coredump.WriteFrames(w, c.Backtrace)
	c.Site.WriteText(w)
}

// WriteSummary writes the compact tally (tests, diagnostics, steps) and
// the command that decided the run.
func (r *Result) WriteSummary(w io.Writer) {
	var parts []string
	if r.Report != nil {
		parts = append(parts, testsTally(r.Report.Totals))
	}
	parts = append(parts, textclip.Count(r.Log.Errors+r.Log.LinkerErrors, "error")+", "+textclip.Count(r.Log.Warnings, "warning"))
	var steps []string
	for _, s := range r.Steps {
		steps = append(steps, s.tally())
	}
	parts = append(parts, strings.Join(steps, ", "))
	fmt.Fprintf(w, "summary: %s\n", strings.Join(parts, "; "))
	if n := len(r.Steps); n > 0 {
		last := r.Steps[n-1]
		if !last.Ran {
			last = r.Steps[0]
		}
		fmt.Fprintf(w, "command: %s (in %s)\n", last.Step.CommandLine(), filepath.Clean(last.Step.Dir))
	}
}

func testsTally(t testreport.Totals) string {
	s := fmt.Sprintf("%d tests: %d passed, %d failed", t.Total, t.Passed, t.Failed)
	if t.Errored > 0 {
		s += fmt.Sprintf(", %d errored", t.Errored)
	}
	if t.Crashed > 0 {
		s += fmt.Sprintf(", %d crashed", t.Crashed)
	}
	return s + fmt.Sprintf(", %d skipped", t.Skipped)
}

// tally is how the step ended, in a few words: "build exit 0 1.2s".
func (s StepResult) tally() string {
	if !s.Ran {
		return s.Step.Name + " not run"
	}
	r := s.Outcome.Result
	d := r.Duration.Truncate(time.Millisecond).Round(10 * time.Millisecond)
	if r.SignalName != "" {
		return fmt.Sprintf("%s %s %s", s.Step.Name, r.SignalName, d)
	}
	return fmt.Sprintf("%s exit %d %s", s.Step.Name, r.ExitCode, d)
}
