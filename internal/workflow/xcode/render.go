package xcode

import (
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/excerpt"
	"github.com/triage-dev/triage/internal/textclip"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/render"
	"github.com/triage-dev/triage/internal/xcode"
)

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
	var fs []render.Failure
	for _, f := range o.Failures() {
		fs = append(fs, render.Failure(f))
	}
	render.Failures(&b, fs, "xcresult.failures and tests.cases")
	apple.WriteReports(&b, out.CrashReports)
	writeSummary(&b, out, o)
	b.WriteString(coverage)
	for _, n := range out.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	render.FilteredLog(&b, out.Captured, o.Run.Log, filtered)
	return b.String()
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
	parts = append(parts, textclip.Count(out.Errors, "error")+", "+textclip.Count(out.Warnings, "warning"))
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
