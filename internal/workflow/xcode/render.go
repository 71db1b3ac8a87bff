package xcode

import (
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/excerpt"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/xcode"
)

// Bounds of the text; the structured output has everything.
const (
	maxErrorsShown   = 10
	maxFailuresShown = 10
	maxMessageLines  = 4
	maxReportLines   = 12
)

// render writes the verdict, what failed, crash reports, a summary and the
// filtered log.
func render(out BuildOutput, o *xcode.BuildOutcome, filtered excerpt.Excerpt) string {
	var b strings.Builder
	b.WriteString(o.Line)
	b.WriteByte('\n')
	writeErrors(&b, out)
	writeFailures(&b, out)
	for _, r := range out.CrashReports {
		fmt.Fprintf(&b, "crash report (%s): %s\n", r.Role, r.Path)
		for i, l := range strings.Split(r.Summary, "\n") {
			if i == maxReportLines {
				b.WriteString("    …\n")
				break
			}
			fmt.Fprintf(&b, "    %s\n", l)
		}
		fmt.Fprintf(&b, "  more: %s\n", catalog.NextCall("crash_report_show", map[string]any{"path": r.Path}))
	}
	writeSummary(&b, out)
	for _, n := range out.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	if out.TotalLines == 0 {
		fmt.Fprintf(&b, "log: empty (%s)\n", out.OutputID)
		return b.String()
	}
	fmt.Fprintf(&b, "log (filtered: %d of %d lines; full log %s):\n", o.Run.Log.KeptLines, o.Run.Log.Lines, out.OutputID)
	b.WriteString(filtered.Text)
	if filtered.Text != "" && !strings.HasSuffix(filtered.Text, "\n") {
		b.WriteByte('\n')
	}
	if out.Next != "" {
		fmt.Fprintf(&b, "more: %s\n", out.Next)
	}
	return b.String()
}

func writeErrors(b *strings.Builder, out BuildOutput) {
	var errs []string
	for _, d := range out.Diagnostics {
		if d.Kind == logfilter.KindError || d.Kind == logfilter.KindLinker {
			errs = append(errs, diagnosticLine(d))
		}
	}
	if len(errs) == 0 && out.Tests != nil {
		errs = append(errs, out.Tests.BuildErrors...)
	}
	if len(errs) == 0 {
		return
	}
	b.WriteString("errors:\n")
	for i, e := range errs {
		if i == maxErrorsShown {
			fmt.Fprintf(b, "  … %d more in diagnostics\n", len(errs)-i)
			break
		}
		fmt.Fprintf(b, "  %s\n", e)
	}
}

func diagnosticLine(d logfilter.Diagnostic) string {
	switch {
	case d.File == "":
		return d.Message
	case d.Line > 0:
		return fmt.Sprintf("%s:%d: %s", d.File, d.Line, d.Message)
	}
	return d.File + ": " + d.Message
}

// writeFailures lists failed tests: the result bundle's (authoritative
// messages) when there is one, and crashed or errored cases from the log,
// which the bundle may not know.
func writeFailures(b *strings.Builder, out BuildOutput) {
	type failure struct{ name, status, where, msg string }
	var fs []failure
	seen := map[string]bool{}
	if s := out.XCResult; s != nil {
		for _, f := range s.Failures {
			fs = append(fs, failure{f.TestName, "failed", f.Location, f.Text})
			seen[f.TestName] = true
		}
	}
	if rep := out.Tests; rep != nil {
		for _, c := range rep.Failures() {
			if seen[c.Name] || (out.XCResult != nil && c.Status == testreport.Failed) {
				continue
			}
			where := ""
			if c.File != "" {
				where = fmt.Sprintf("%s:%d", c.File, c.Line)
			}
			name := c.Name
			if c.Suite != "" {
				name = c.Suite + "." + c.Name
			}
			fs = append(fs, failure{name, string(c.Status), where, c.Message})
		}
		for _, e := range rep.RunnerErrors {
			fs = append(fs, failure{"test runner", "error", "", e})
		}
	}
	if len(fs) == 0 {
		return
	}
	b.WriteString("failed tests:\n")
	for i, f := range fs {
		if i == maxFailuresShown {
			fmt.Fprintf(b, "  … %d more in xcresult.failures and tests.cases\n", len(fs)-i)
			break
		}
		fmt.Fprintf(b, "  %s [%s]", f.name, f.status)
		if f.where != "" {
			fmt.Fprintf(b, " at %s", f.where)
		}
		b.WriteByte('\n')
		for j, l := range strings.Split(strings.TrimSpace(f.msg), "\n") {
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

func writeSummary(b *strings.Builder, out BuildOutput) {
	var parts []string
	switch {
	case out.XCResult != nil:
		s := out.XCResult
		parts = append(parts, fmt.Sprintf("%d tests: %d passed, %d failed, %d skipped (result bundle)", s.Total, s.Passed, s.Failed, s.Skipped))
	case out.Tests != nil:
		t := out.Tests.Totals
		parts = append(parts, fmt.Sprintf("%d tests: %d passed, %d failed, %d crashed, %d skipped (log)", t.Total, t.Passed, t.Failed+t.Errored, t.Crashed, t.Skipped))
	}
	parts = append(parts, fmt.Sprintf("%d errors, %d warnings", out.Errors, out.Warnings))
	exit := fmt.Sprintf("xcodebuild exit %d", out.ExitCode)
	if out.Signal != "" {
		exit = "xcodebuild killed by " + out.Signal
	}
	parts = append(parts, fmt.Sprintf("%s after %dms", exit, out.DurationMS))
	fmt.Fprintf(b, "summary: %s\n", strings.Join(parts, "; "))
	fmt.Fprintf(b, "command: %s\n", out.Command)
	if out.ResultBundle != "" {
		fmt.Fprintf(b, "result bundle: %s\n", out.ResultBundle)
	}
}
