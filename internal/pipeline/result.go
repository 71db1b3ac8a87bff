package pipeline

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/hang"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/textclip"
	"github.com/triage-dev/triage/internal/toolchain"
	"github.com/triage-dev/triage/internal/verdict"
)

// Status is how a build or test run went.
type Status string

const (
	Succeeded   Status = "succeeded"   // built, or every selected test passed
	Failed      Status = "failed"      // compile/link errors, failed tests, a failed step
	Crashed     Status = "crashed"     // a test process or a tool died
	TimedOut    Status = "timed_out"   // the time limit ended it
	Interrupted Status = "interrupted" // cancelled
	NoTests     Status = "no_tests"    // the test run ran no test
	// SilentFailure: the exit status says failure, and the output names none.
	SilentFailure Status = "silent_failure"
)

// OK reports whether the run is a success.
func (s Status) OK() bool { return s == Succeeded }

// Result is what a build or test run (or an analysed log) came to.
type Result struct {
	Kind   string `json:"kind"` // KindBuild or KindTest
	Status Status `json:"status"`
	// Line is the verdict line.
	Line  string       `json:"verdict"`
	Steps []StepResult `json:"steps,omitempty"`
	// Log is what the filter saw: counts and every diagnostic (bounded).
	Log logfilter.Summary `json:"log"`
	// Report is the parsed test run; nil for builds, and for test runs whose
	// test step did not run or printed no format testreport knows.
	Report *testreport.Report `json:"report,omitempty"`
	Format string             `json:"format,omitempty"` // the Report's input format
	// Crash describes a test process that crashed under the test runner.
	Crash *TestCrash `json:"crash,omitempty"`
	// Hang holds the stacks taken before a timed-out step was killed, and
	// where it was stuck.
	Hang *hang.Report `json:"hang,omitempty"`
	// Failed is the step that failed and ended the run, nil when none did.
	Failed   *StepResult   `json:"-"`
	RawID    string        `json:"raw_id,omitempty"`
	Duration time.Duration `json:"duration_ns,omitempty"`
	Notes    []string      `json:"notes,omitempty"`
	// Coverage is a coverage run's report; CoverageError says why a
	// coverage run has none.
	Coverage      *coverage.Report `json:"-"`
	CoverageError string           `json:"coverage_error,omitempty"`
	// guessed: the test output's format was not recognised and Report is
	// the fallback reader's; no runner's summary vouches for it.
	guessed bool
	// limit names the time limit (Request.Limit), for a timeout's line.
	limit string
}

// conclude sets Status and Line from everything gathered.
func (r *Result) conclude() {
	r.Failed = nil
	for i := range r.Steps {
		s := &r.Steps[i]
		if s.Ran && !s.Outcome.Result.Success() {
			r.Failed = s
			break
		}
	}
	switch {
	case r.stoppedByUs():
		return
	case r.Failed != nil && r.Failed.Step.Name != toolchain.StepTest:
		where := ""
		if r.Kind == KindTest {
			where = r.Failed.Step.Name + " step; the tests did not run"
		}
		r.concludeBuild(where)
	case r.Kind == KindTest:
		r.concludeTests()
	default:
		r.concludeBuild("")
	}
	r.failSafe()
}

// stoppedByUs concludes a run that a timeout or cancellation ended.
func (r *Result) stoppedByUs() bool {
	f := r.Failed
	if f == nil || (!f.Outcome.Result.TimedOut && !f.Outcome.Result.Cancelled) {
		return false
	}
	res := f.Outcome.Result
	running := ""
	if r.Report != nil {
		for _, c := range r.Report.Failures() {
			if c.Status == testreport.Errored || c.Status == testreport.Crashed {
				running = " while running " + qualifiedName(c, r.Report.Format)
			}
		}
	}
	if res.TimedOut {
		r.Status = TimedOut
		r.Line = fmt.Sprintf("%s in the %s step%s", r.stopHead(f), f.Step.Name, running)
		r.Line = r.withStuck(f, r.Line) // where it was stuck: hang.go
	} else {
		r.Status = Interrupted
		r.Line = fmt.Sprintf("INTERRUPTED in the %s step%s", f.Step.Name, running)
		if why, ok := strings.CutPrefix(f.Outcome.Verdict.Line, "INTERRUPTED — "); ok {
			r.Line += " — " + why // the ssh connection to a host was lost
		}
	}
	return true
}

// concludeBuild concludes a build, or the build part of a test run, from
// the failed step (if any) and the diagnostics. where, when set, says what
// the failure stopped ("build step; the tests did not run"). A failed
// build is named by its first compiler error, with its location:
// "BUILD FAILED: 2 errors (where): src/lib.rs:485:29: error[E0308]: …".
func (r *Result) concludeBuild(where string) {
	errs := r.Log.Errors + r.Log.LinkerErrors
	warn := textclip.Count(r.Log.Warnings, "warning")
	if f := r.Failed; f != nil && f.Outcome.Verdict.Status == verdict.StatusCrash && errs == 0 {
		r.Status = Crashed
		r.Line = crashedStepLine(f.Step.Argv[0], f.Outcome.Verdict.Line)
		if c := r.Crash; c != nil && c.Program != "" && c.Frame != nil && c.Frame.Function != "" {
			// The process that crashed under the step (a generator a
			// custom command ran), from its own core.
			r.Line = buildCrashLine(c, f.Step.Name)
		}
		return
	}
	exit := 0
	if r.Failed != nil {
		exit = r.Failed.Outcome.Result.ExitCode
	}
	switch {
	case errs > 0:
		r.Status = Failed
		r.Line = fmt.Sprintf("BUILD FAILED: %s", textclip.Count(errs, "error"))
		if r.Failed == nil && len(r.Steps) > 0 {
			// The tools exited 0 yet printed errors: say both.
			where = strings.TrimPrefix(where+"; yet every step exited 0", "; ")
		}
		if where != "" {
			r.Line += " (" + where + ")"
		}
		if first := firstError(r.Log.Diagnostics); first != "" {
			r.Line += ": " + clip(first, 160)
		}
		return
	case r.Failed != nil:
		r.Status = SilentFailure
		r.Line = fmt.Sprintf("BUILD FAILED (exit %d in the %s step) but no error was recognised — see output", exit, r.Failed.Step.Name)
	case r.Log.Crashes > 0:
		r.Status = Crashed
		r.Line = fmt.Sprintf("CRASHED: %s in the log", textclip.Count(r.Log.Crashes, "crash indicator"))
	case len(r.Steps) == 0 && r.Log.Alarm != nil:
		// A log no reader knows that says in a runner's words that
		// something crashed, timed out or failed.
		r.alarmVerdict()
	case r.Log.Failures > 0 && len(r.Steps) == 0:
		// An analysed log that reports failures but no compiler error.
		r.Status = Failed
		r.Line = fmt.Sprintf("FAILED: %s in the log", textclip.Count(r.Log.Failures, "failure line"))
	default:
		r.Status = Succeeded
		r.Line = fmt.Sprintf("BUILD SUCCEEDED (%s)", warn)
	}
	if where != "" && r.Status != Crashed {
		r.Line += " (" + where + ")"
	}
}

// firstError names the first compiler or linker error, "file:line:col:
// message" (an absolute file by its base name), preferring the first one with a location (cargo's "could
// not compile" comes after rustc's located errors); "" when none.
func firstError(diags []logfilter.Diagnostic) string {
	first := ""
	for _, d := range diags {
		if d.Kind != logfilter.KindError && d.Kind != logfilter.KindLinker {
			continue
		}
		if d.File == "" || d.Line == 0 {
			if first == "" {
				first = d.Message
			}
			continue
		}
		file := d.File
		if strings.HasPrefix(file, "/") {
			// As a crash's frame is named: the errors list has the path.
			file = baseName(file)
		}
		loc := fmt.Sprintf("%s:%d", file, d.Line)
		if d.Col > 0 {
			loc += fmt.Sprintf(":%d", d.Col)
		}
		return loc + ": " + d.Message
	}
	return first
}

// concludeTests concludes a test run from its report.
func (r *Result) concludeTests() {
	rep := r.Report
	var res *testStepOutcome
	if len(r.Steps) > 0 {
		res = newTestStepOutcome(r.Steps[len(r.Steps)-1], rep != nil)
	}
	if r.buildStoppedTests(res) { // buildstopped.go
		r.concludeBuildStoppedTests()
		return
	}
	if rep == nil {
		r.concludeUnparsed(res)
		return
	}
	t := rep.Totals
	bad := t.Failed + t.Errored + t.Crashed
	switch {
	case rep.Status == testreport.Crashed || r.Crash != nil || (res != nil && res.crashed):
		r.Status = Crashed
		r.Line = r.crashLine(res)
	case len(rep.BuildErrors) > 0:
		r.Status = Failed
		r.Line = buildErrorsLine(rep)
	case len(rep.CutShort) > 0:
		r.Status = Failed
		r.Line = "TESTS FAILED: " + cutShortClause(rep)
	case bad > 0:
		r.Status = Failed
		r.Line = runnerTimeoutLine(rep, bad) // runnertimeout.go
		if r.Line == "" {
			r.Line = fmt.Sprintf("TESTS FAILED: %d of %d failed", bad, t.Total) + kindClause(rep)
		}
	case len(rep.RunnerErrors) > 0:
		// The runner said why it failed: not a silent failure.
		r.Status = Failed
		r.Line = "TESTS FAILED: the test runner failed: " + clip(firstLine(rep.RunnerErrors[0]), 160)
	case rep.SilentFailure || (res != nil && res.exit != 0):
		r.Status = SilentFailure
		r.Line = fmt.Sprintf("FAILED (exit %d) but no failing test was reported — see output", res.exitOr(1))
	case rep.Status == testreport.Failed || rep.Status == testreport.Errored:
		r.Status = Failed
		r.Line = fmt.Sprintf("TESTS FAILED: the test runner failed (%s)", firstOf(rep.Notes))
	case t.Total == 0 || t.Passed == 0 && t.Skipped == t.Total:
		r.Status = NoTests
		r.Line = r.noTestsLine()
	default:
		r.Status = Succeeded
		r.Line = fmt.Sprintf("TESTS PASSED: %d passed", t.Passed)
		if t.Skipped > 0 {
			r.Line += fmt.Sprintf(", %d skipped", t.Skipped)
		}
		if rep.CountMismatch {
			r.Line += " (count mismatch with the tool's summary — see notes)"
		}
	}
}

// kindClause names the first test that failed by more than an assertion
// (a data race) and where: "; data race in pkg/TestX at errgroup.go:78".
func kindClause(rep *testreport.Report) string {
	for _, c := range rep.Failures() {
		if c.Kind == "" {
			continue
		}
		s := "; " + c.Kind + " in " + qualifiedName(c, rep.Format)
		if c.File != "" {
			s += fmt.Sprintf(" at %s:%d", baseName(c.File), c.Line)
		}
		return s
	}
	return ""
}

// buildErrorsLine is "BUILD FAILED: 1 error: a.go:3:5: undefined: x",
// followed by what the tests that did build came to: compile errors in one
// Go package do not stop the others' tests.
func buildErrorsLine(rep *testreport.Report) string {
	t := rep.Totals
	line := "BUILD FAILED: " + textclip.Count(len(rep.BuildErrors), "error")
	if t.Total == 0 && len(rep.CutShort) == 0 {
		line += " (the tests did not run)"
	}
	line += ": " + clip(firstLine(rep.BuildErrors[0]), 160)
	switch bad := t.Failed + t.Errored + t.Crashed; {
	case len(rep.CutShort) > 0:
		line += "; and TESTS FAILED: " + cutShortClause(rep)
	case bad > 0:
		line += fmt.Sprintf("; and TESTS FAILED: %d of %d failed", bad, t.Total)
	case t.Passed > 0:
		line += fmt.Sprintf("; %d other tests passed", t.Passed)
	}
	return line
}

// cutShortClause names the first run that ended before it finished: "the
// run ended before TestX finished (pkg: exit 0); 2 passed", or "pkg ended
// without a result (exit 0 without the test binary's PASS line)".
func cutShortClause(rep *testreport.Report) string {
	cs := rep.CutShort[0]
	var b strings.Builder
	if cs.Test != "" {
		fmt.Fprintf(&b, "the run ended before %s finished (%s: %s)", cs.Test, cs.Suite, cs.How)
	} else {
		fmt.Fprintf(&b, "%s ended without a result (%s)", cs.Suite, cs.How)
	}
	if n := len(rep.CutShort) - 1; n > 0 {
		fmt.Fprintf(&b, " (and %d more cut short)", n)
	}
	t := rep.Totals
	named := 0
	for _, c := range rep.CutShort {
		if c.Test != "" {
			named++
		}
	}
	switch more := t.Failed + t.Errored + t.Crashed - named; {
	case more > 0:
		fmt.Fprintf(&b, "; and %d more of %d failed", more, t.Total)
	case t.Passed > 0:
		fmt.Fprintf(&b, "; %d passed", t.Passed)
	}
	return b.String()
}

// concludeUnparsed concludes a test run whose output held no test format
// testreport knows (a make check, an explicit command).
func (r *Result) concludeUnparsed(res *testStepOutcome) {
	switch {
	case res == nil:
		r.concludeBuild("")
	case res.crashed:
		r.Status = Crashed
		r.Line = r.crashLine(res)
	case res.exit != 0:
		// Compiler errors that stopped the step were concluded before
		// (buildStoppedTests): these are other errors.
		if r.Log.Errors+r.Log.LinkerErrors > 0 {
			r.Status = Failed
			r.Line = fmt.Sprintf("TESTS FAILED (exit %d): %s in the output; no test results recognised", res.exit, textclip.Count(r.Log.Errors+r.Log.LinkerErrors, "error"))
			return
		}
		r.Status = SilentFailure
		r.Line = fmt.Sprintf("FAILED (exit %d) but no failing test was reported — see output", res.exit)
	default:
		// Exit 0 with nothing to count is not "tests passed".
		r.Status = Succeeded
		r.Line = "TEST COMMAND SUCCEEDED (exit 0) but no test results were recognised in its output"
	}
}

func (r *Result) noTestsLine() string {
	filter := ""
	if n := len(r.Steps); n > 0 {
		filter = r.Steps[n-1].Step.Filter
	}
	if filter != "" {
		return fmt.Sprintf("NO TESTS RAN: filter %s matched nothing", filter)
	}
	line := "NO TESTS RAN: the run found no tests"
	if n := len(r.Steps); n > 0 {
		if opts := toolchain.TestOptionsOff(r.Steps[n-1].Step.Dir); len(opts) > 0 {
			// Projects often build their tests only when asked.
			q, _ := json.Marshal(opts)
			line += fmt.Sprintf("; the build directory has its test options off: configure_args %s would turn them on", q)
		}
	}
	return line
}

// testStepOutcome is what the verdict needs of the test step's process.
type testStepOutcome struct {
	exit        int
	crashed     bool   // the test runner itself crashed
	verdictLine string // the runner's verdict line
}

// newTestStepOutcome reads the test step's process. With a parsed report,
// only a signal makes the runner itself crashed: crash indicators in its
// output (a Rust test's panic, caught by libtest) are the report's to
// judge. Without one, the crash indicators are all there is.
func newTestStepOutcome(s StepResult, parsed bool) *testStepOutcome {
	if !s.Ran || s.Outcome == nil {
		return nil
	}
	v, res := s.Outcome.Verdict, s.Outcome.Result
	crashed := res.Signaled
	if !parsed {
		crashed = crashed || v.Status == verdict.StatusCrash
	}
	return &testStepOutcome{exit: res.ExitCode, crashed: crashed, verdictLine: v.Line}
}

func (o *testStepOutcome) exitOr(def int) int {
	if o == nil {
		return def
	}
	return o.exit
}

func firstOf(lists ...[]string) string {
	for _, l := range lists {
		if len(l) > 0 {
			return l[0]
		}
	}
	return "see output"
}

// afterPanic is the panic value of a Go panic message, without the
// testing package's "[recovered, repanicked]" suffixes.
func afterPanic(msg string) string {
	i := strings.Index(msg, "panic: ")
	s := msg[i+len("panic: "):]
	if j := strings.IndexByte(s, '\n'); j >= 0 {
		s = s[:j]
	}
	for _, suffix := range []string{" [recovered, repanicked]", " [recovered]"} {
		s = strings.TrimSuffix(s, suffix)
	}
	return strings.TrimSpace(s)
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string { return textclip.String(s, n) }

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
