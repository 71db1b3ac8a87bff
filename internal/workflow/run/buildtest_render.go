package run

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/excerpt"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/workflow/render"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// renderBuildTest writes the text of a build or test result: the verdict,
// what failed, a compact summary, the next calls, the filtered log.
func renderBuildTest(out BuildTestOutput, res *pipeline.Result, filtered excerpt.Excerpt, cov *coverage.Summary) string {
	var b strings.Builder
	b.WriteString(res.Line)
	b.WriteByte('\n')
	var buildErrors []string
	if res.Report != nil {
		buildErrors = res.Report.BuildErrors
	}
	render.Errors(&b, res.Log.Diagnostics, buildErrors)
	if res.Report != nil {
		render.Failures(&b, failures(res.Report), "tests.cases")
	}
	if res.Crash != nil {
		writeTestCrash(&b, res.Crash)
	}
	if res.Hang != nil {
		res.Hang.WriteStuck(&b)
	}
	writeSummary(&b, out, res)
	writeCoverage(&b, cov, out.Coverage, out.OutputID)
	if len(out.Notes) > 0 {
		b.WriteString("notes:\n")
		for _, n := range out.Notes {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	for _, h := range out.Next {
		writeHint(&b, h)
	}
	if res.Crash != nil && res.Crash.Core != "" {
		writeCoreNext(&b, res.Crash.Core, res.Crash.Program, out.SSHHost)
	}
	render.FilteredLog(&b, out.Captured, res.Log, filtered)
	return b.String()
}

// failures are the report's failed, errored and crashed tests.
func failures(rep *testreport.Report) []render.Failure {
	var fs []render.Failure
	for _, c := range rep.Failures() {
		name := c.Name
		if c.Suite != "" && c.Suite != rep.Format {
			name = c.Suite + " " + c.Name
		}
		where := ""
		if c.File != "" {
			where = fmt.Sprintf("%s:%d", c.File, c.Line)
		}
		status := string(c.Status)
		if c.Kind != "" {
			status += ": " + c.Kind // "failed: data race"
		}
		fs = append(fs, render.Failure{Name: name, Status: status, Where: where, Message: c.Message})
	}
	return fs
}

func writeTestCrash(b *strings.Builder, c *pipeline.TestCrash) {
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
	if c.NoDebugInfo != nil {
		fmt.Fprintf(b, "%s\n", c.NoDebugInfo)
	}
	if len(c.Backtrace) > 0 {
		b.WriteString("backtrace:\n")
	}
	for i, f := range c.Backtrace {
		if i == maxFramesShown {
			fmt.Fprintf(b, "  … %d more frames\n", len(c.Backtrace)-i)
			break
		}
		fmt.Fprintf(b, "  %s\n", f.String())
	}
	writeSite(b, c.Site)
}

// writeSummary is the compact tally: tests, diagnostics, steps.
func writeSummary(b *strings.Builder, out BuildTestOutput, res *pipeline.Result) {
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
	if out.Build != "" {
		fmt.Fprintf(b, "build: %s\n", out.Build)
	}
}

func ms(n int64) string {
	return (time.Duration(n) * time.Millisecond).Round(10 * time.Millisecond).String()
}

// writeHint writes a next call ("next: test {…} — rebuild …"), or the
// advice when no call can do it.
func writeHint(b *strings.Builder, h wire.Hint) {
	if h.Tool == "" {
		fmt.Fprintf(b, "next: %s\n", h.Text)
		return
	}
	fmt.Fprintf(b, "next: %s (%s)\n", catalog.NextCall(h.Tool, h.Args), h.Text)
}

// writeCoreNext names the calls that open a core: dump_open for the
// engines (gdb, lldb, drgn) and debug_attach for the debugger's own tools;
// a core on a host is opened there.
func writeCoreNext(b *strings.Builder, core, program, host string) {
	args := map[string]any{"core": core}
	if host != "" {
		args["ssh_host"] = host
	}
	if program == "" { // the core does not name its executable: both need it
		fmt.Fprintf(b, "next: %s with the program that dumped it\n", catalog.NextCall("dump_open", args))
		return
	}
	args["program"] = program
	fmt.Fprintf(b, "next: %s\nnext: %s (or in the debugger: then debug_stack, debug_variables)\n",
		catalog.NextCall("dump_open", args), catalog.NextCall("debug_attach", args))
}
