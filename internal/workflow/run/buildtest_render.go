package run

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/buildrun"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/excerpt"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testreport"
)

// Bounds of the text; the structured output has everything.
const (
	maxErrorsShown   = 10
	maxFailuresShown = 10
	maxMessageLines  = 4
)

// renderBuildTest writes the text of a build or test result: the verdict,
// what failed, a compact summary, the next calls, the filtered log.
func renderBuildTest(out BuildTestOutput, res *buildrun.Result, filtered excerpt.Excerpt) string {
	var b strings.Builder
	b.WriteString(res.Line)
	b.WriteByte('\n')
	writeErrors(&b, res)
	if res.Report != nil {
		writeFailedTests(&b, res.Report)
	}
	if res.Crash != nil {
		writeTestCrash(&b, res.Crash)
	}
	writeSummary(&b, out, res)
	if len(out.Notes) > 0 {
		b.WriteString("notes:\n")
		for _, n := range out.Notes {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	if res.Crash != nil && res.Crash.Core != "" {
		fmt.Fprintf(&b, "next: %s\n", catalog.NextCall("dump_open", map[string]any{"core": res.Crash.Core, "program": res.Crash.Program}))
	}
	writeFilteredLog(&b, out.Captured, res.Log, filtered)
	return b.String()
}

// writeErrors lists compiler and linker errors, first of all when the build
// is what failed.
func writeErrors(b *strings.Builder, res *buildrun.Result) {
	var errs []logfilter.Diagnostic
	for _, d := range res.Log.Diagnostics {
		if d.Kind == logfilter.KindError || d.Kind == logfilter.KindLinker {
			errs = append(errs, d)
		}
	}
	if len(errs) == 0 && res.Report != nil {
		for _, e := range res.Report.BuildErrors {
			errs = append(errs, logfilter.Diagnostic{Kind: logfilter.KindError, Message: e})
		}
	}
	if len(errs) == 0 {
		return
	}
	b.WriteString("errors:\n")
	for i, d := range errs {
		if i == maxErrorsShown {
			fmt.Fprintf(b, "  … %d more in diagnostics\n", len(errs)-i)
			break
		}
		fmt.Fprintf(b, "  %s\n", diagnosticLine(d))
	}
}

func diagnosticLine(d logfilter.Diagnostic) string {
	loc := d.File
	switch {
	case loc == "":
	case d.Col > 0:
		loc = fmt.Sprintf("%s:%d:%d: ", d.File, d.Line, d.Col)
	case d.Line > 0:
		loc = fmt.Sprintf("%s:%d: ", d.File, d.Line)
	default:
		loc += ": "
	}
	count := ""
	if d.Count > 1 {
		count = fmt.Sprintf(" (×%d)", d.Count)
	}
	return loc + d.Message + count
}

func writeFailedTests(b *strings.Builder, rep *testreport.Report) {
	failures := rep.Failures()
	if len(failures) == 0 {
		return
	}
	b.WriteString("failed tests:\n")
	for i, c := range failures {
		if i == maxFailuresShown {
			fmt.Fprintf(b, "  … %d more in tests.cases\n", len(failures)-i)
			break
		}
		name := c.Name
		if c.Suite != "" && c.Suite != rep.Format {
			name = c.Suite + " " + c.Name
		}
		fmt.Fprintf(b, "  %s [%s]", name, c.Status)
		if c.File != "" {
			fmt.Fprintf(b, " at %s:%d", c.File, c.Line)
		}
		b.WriteByte('\n')
		for j, l := range strings.Split(strings.TrimSpace(c.Message), "\n") {
			if j == maxMessageLines {
				b.WriteString("      …\n")
				break
			}
			if l = strings.TrimSpace(l); l != "" {
				fmt.Fprintf(b, "      %s\n", l)
			}
		}
	}
}

func writeTestCrash(b *strings.Builder, c *buildrun.TestCrash) {
	switch {
	case c.Core != "":
		fmt.Fprintf(b, "core: %s", c.Core)
		if c.Program != "" {
			fmt.Fprintf(b, " (program %s)", c.Program)
		}
		b.WriteByte('\n')
	case c.NoCore != "":
		fmt.Fprintf(b, "core: none — %s\n", c.NoCore)
	}
	if len(c.Backtrace) == 0 {
		return
	}
	b.WriteString("backtrace:\n")
	for i, f := range c.Backtrace {
		if i == maxFramesShown {
			fmt.Fprintf(b, "  … %d more frames\n", len(c.Backtrace)-i)
			break
		}
		fmt.Fprintf(b, "  %s\n", f.String())
	}
}

// writeSummary is the compact tally: tests, diagnostics, steps.
func writeSummary(b *strings.Builder, out BuildTestOutput, res *buildrun.Result) {
	var parts []string
	if rep := res.Report; rep != nil {
		t := rep.Totals
		s := fmt.Sprintf("%d tests: %d passed, %d failed", t.Total, t.Passed, t.Failed)
		if t.Errored > 0 {
			s += fmt.Sprintf(", %d errored", t.Errored)
		}
		if t.Crashed > 0 {
			s += fmt.Sprintf(", %d crashed", t.Crashed)
		}
		s += fmt.Sprintf(", %d skipped", t.Skipped)
		parts = append(parts, s)
	}
	parts = append(parts, fmt.Sprintf("%d errors, %d warnings", out.Errors, out.Warnings))
	var steps []string
	for _, s := range out.Steps {
		switch {
		case !s.Ran:
			steps = append(steps, s.Name+" not run")
		case s.Signal != "":
			steps = append(steps, fmt.Sprintf("%s %s %s", s.Name, s.Signal, ms(s.DurationMS)))
		default:
			steps = append(steps, fmt.Sprintf("%s exit %d %s", s.Name, s.ExitCode, ms(s.DurationMS)))
		}
	}
	parts = append(parts, strings.Join(steps, ", "))
	fmt.Fprintf(b, "summary: %s\n", strings.Join(parts, "; "))
	if n := len(out.Steps); n > 0 {
		last := out.Steps[n-1]
		if !last.Ran {
			last = out.Steps[0]
		}
		fmt.Fprintf(b, "command: %s (in %s)\n", last.Command, filepath.Clean(last.Dir))
	}
}

func ms(n int64) string {
	return (time.Duration(n) * time.Millisecond).Round(10 * time.Millisecond).String()
}

// writeFilteredLog shows the filtered log (bounded) and how to see the raw
// one.
func writeFilteredLog(b *strings.Builder, c catalog.Captured, sum logfilter.Summary, ex excerpt.Excerpt) {
	if c.TotalLines == 0 {
		fmt.Fprintf(b, "log: empty (%s)\n", c.OutputID)
		return
	}
	fmt.Fprintf(b, "log (filtered: %d of %d lines; full log %s):\n", sum.KeptLines, sum.Lines, c.OutputID)
	b.WriteString(ex.Text)
	if ex.Text != "" && !strings.HasSuffix(ex.Text, "\n") {
		b.WriteByte('\n')
	}
	if c.Next != "" {
		fmt.Fprintf(b, "more: %s\n", c.Next)
	}
}
