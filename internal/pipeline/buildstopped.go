package pipeline

import (
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testreport"
)

// whereTestStepBuilt is what a build failure in a test step says it
// stopped: the step builds, then tests, and no test result came of it.
const whereTestStepBuilt = "test step; no test results recognised"

// buildStoppedTests reports whether a test step failed because its build
// did. Many test steps build, then test, in one command (autotools' and a
// plain Makefile's `make check` or `make test`, Perl's `make test`, `meson
// test`, `go test`, `cargo test`), so a compiler error fails the test step
// itself; the verdict must then name that error as a failed build step's
// does, not call the run a silent or a test failure. One rule for every
// toolchain: the step's output holds compiler or linker errors (the
// report's BuildErrors, or compiler errors among the log filter's
// diagnostics in a step that failed) and no test result was recognised.
// When tests did run too, theirs is the verdict; a crash (res.crashed,
// r.Crash) or a timeout (concluded before this) is never a build failure.
// A log read without a step (res nil) is left to its own rules.
func (r *Result) buildStoppedTests(res *testStepOutcome) bool {
	rep := r.Report
	switch {
	case res == nil || res.crashed || r.Crash != nil:
		return false
	case rep != nil && (rep.Status == testreport.Crashed || testResultsRecognised(rep)):
		return false
	case rep != nil && len(rep.BuildErrors) > 0:
		return true // the runner's own word that its build failed
	}
	return res.exit != 0 && compilerErrors(r.Log.Diagnostics) > 0
}

// concludeBuildStoppedTests concludes a test run that buildStoppedTests
// says its build stopped: "BUILD FAILED: 1 error (where): file:line: …",
// from the runner's own list of errors when it has one.
func (r *Result) concludeBuildStoppedTests() {
	if rep := r.Report; rep != nil && len(rep.BuildErrors) > 0 {
		r.Status = Failed
		r.Line = buildErrorsLine(rep)
		return
	}
	r.concludeBuild(whereTestStepBuilt)
}

// testResultsRecognised reports whether the report holds any sign that
// tests ran: a case, the runner's own tally, or a test cut short.
func testResultsRecognised(rep *testreport.Report) bool {
	return rep.Totals.Total > 0 || len(rep.Cases) > 0 || rep.ToolSummary != nil || len(rep.CutShort) > 0
}

// compilerErrors counts the errors a compiler printed at a source location,
// and the linker's: what tells a build's output from a test's. A located
// error whose file names no known language counts when it has a column too:
// "Level.xs:18:9: error: …" is gcc's, through xsubpp's #line directives (a
// yacc or lex file's the same), and every compiler triage meets prints the
// column, while a test's own assertion messages give a line at most.
func compilerErrors(diags []logfilter.Diagnostic) int {
	n := 0
	for _, d := range diags {
		switch {
		case d.Kind == logfilter.KindLinker:
			n++
		case d.Kind != logfilter.KindError || d.Line == 0:
		case compilers[d.Tool], d.Tool == "" && d.Col > 0:
			n++
		}
	}
	return n
}

// compilers are the Diagnostic tools that name a compiler.
var compilers = map[string]bool{"cc": true, "go": true, "rustc": true, "swiftc": true, "clang": true}
