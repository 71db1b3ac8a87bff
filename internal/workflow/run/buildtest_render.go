package run

import (
	"fmt"
	"strings"

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
	if res.Crash != nil {
		res.Crash.Memcheck.WriteText(&b) // the cause, when the test's rerun found it, before the symptom
	}
	writeProblems(&b, res)
	res.WriteSummary(&b)
	if out.Build != "" {
		fmt.Fprintf(&b, "build: %s\n", out.Build)
	}
	writeCoverage(&b, cov, out.Coverage, out.OutputID)
	writeNext(&b, out, res.Crash)
	render.FilteredLog(&b, out.Captured, res.Log, filtered)
	return b.String()
}

// writeProblems writes what went wrong: errors, failed tests, a crash, a
// hang.
func writeProblems(b *strings.Builder, res *pipeline.Result) {
	var buildErrors []string
	if res.Report != nil {
		buildErrors = res.Report.BuildErrors
	}
	render.Errors(b, res.Log.Diagnostics, buildErrors)
	if res.Report != nil {
		render.Failures(b, failures(res.Report), "tests.cases")
	}
	if res.Crash != nil {
		res.Crash.WriteText(b)
	}
	if res.Hang != nil {
		res.Hang.WriteStuck(b)
	}
}

// writeNext writes the notes and the calls to make next.
func writeNext(b *strings.Builder, out BuildTestOutput, crash *pipeline.TestCrash) {
	if len(out.Notes) > 0 {
		b.WriteString("notes:\n")
		for _, n := range out.Notes {
			fmt.Fprintf(b, "  - %s\n", n)
		}
	}
	var repeat []wire.Hint // "flaky or real?" comes after what examines this run
	for _, h := range out.Next {
		if _, ok := h.Args["repeat"]; ok {
			repeat = append(repeat, h)
			continue
		}
		writeHint(b, h)
	}
	if crash != nil && crash.Core != "" {
		writeCoreNext(b, crash.Core, crash.Program, out.SSHHost)
	}
	for _, h := range repeat {
		writeHint(b, h)
	}
}

// failures are the report's failed, errored and crashed tests.
func failures(rep *testreport.Report) []render.Failure {
	var fs []render.Failure
	for _, c := range rep.Failures() {
		fs = append(fs, render.Failure{Name: c.Title(rep.Format), Status: c.StatusText(), Where: c.Where(), Message: c.Message})
	}
	return fs
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
