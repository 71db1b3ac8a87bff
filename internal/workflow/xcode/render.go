package xcode

import (
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/excerpt"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/workflow/render"
	"github.com/triage-dev/triage/internal/xcode"
)

// maxReportLines bounds a crash report's summary in the text.
const maxReportLines = 12

// renderBuild writes the verdict, what failed, crash reports, a summary,
// a coverage run's section and the filtered log.
func renderBuild(out BuildOutput, o *xcode.BuildOutcome, filtered excerpt.Excerpt, coverage string) string {
	var b strings.Builder
	b.WriteString(o.Line)
	b.WriteByte('\n')
	var buildErrors []string
	if o.Run.Report != nil {
		buildErrors = o.Run.Report.BuildErrors
	}
	render.Errors(&b, o.Run.Log.Diagnostics, buildErrors)
	render.Failures(&b, failures(o), "xcresult.failures and tests.cases")
	for _, r := range o.CrashReports {
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
	writeSummary(&b, out, o)
	b.WriteString(coverage)
	for _, n := range out.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	render.FilteredLog(&b, out.Captured, o.Run.Log, filtered)
	return b.String()
}

// failures are the failed tests: the result bundle's (authoritative
// messages) when there is one, then crashed or errored cases from the log,
// which the bundle may not know, and the runner's errors.
func failures(o *xcode.BuildOutcome) []render.Failure {
	var fs []render.Failure
	seen := map[string]bool{}
	if s := o.Summary; s != nil {
		for _, f := range s.Failures {
			fs = append(fs, render.Failure{Name: f.TestName, Status: "failed", Where: f.Location, Message: f.Text})
			seen[f.TestName] = true
		}
	}
	if rep := o.Run.Report; rep != nil {
		for _, c := range rep.Failures() {
			if seen[c.Name] || (o.Summary != nil && c.Status == testreport.Failed) {
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
			fs = append(fs, render.Failure{Name: name, Status: string(c.Status), Where: where, Message: c.Message})
		}
		for _, e := range rep.RunnerErrors {
			fs = append(fs, render.Failure{Name: "test runner", Status: "error", Message: e})
		}
	}
	return fs
}

func writeSummary(b *strings.Builder, out BuildOutput, o *xcode.BuildOutcome) {
	var parts []string
	switch {
	case o.Summary != nil:
		s := o.Summary
		parts = append(parts, fmt.Sprintf("%d tests: %d passed, %d failed, %d skipped (result bundle)", s.Total, s.Passed, s.Failed, s.Skipped))
	case o.Run.Report != nil:
		t := o.Run.Report.Totals
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
