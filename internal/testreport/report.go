// Package testreport turns the output of test runners into one result model.
//
// Parsers exist for `go test -json` and go test's text (gotext.go),
// cargo/libtest text, CTest text, JUnit
// XML (CTest's, go-junit-report's, xcbeautify's, anyone's) and the text of
// xcodebuild / `swift test` runs, which interleave XCTest and Swift Testing
// output, including parallel runs on simulator clones. Each reads its input
// line by line (or token by token), so a log of any size streams through;
// only the cases and bounded messages are kept.
//
// The model distinguishes a test that failed an assertion from one whose
// process died under it: a test that started and never finished because the
// runner crashed (a Go panic or os.Exit, XCTest's "Terminating app due to
// uncaught exception", CTest's "***Exception: SegFault") is crashed or
// errored, never passed. A run is complete only when the runner's own
// summary came and every started test finished: one that ended early
// (syscall.Exit(0) in a Go test, process::exit in a Rust test, ctest
// killed, a log cut) is recorded in [Report.CutShort] and never passes. Two
// cross-checks guard against "all passed" when it
// is not so: the counts parsed are compared with the tool's own summary line
// (a mismatch becomes a Note), and [Report.ApplyExitCode] flags a failing exit
// status with no failure parsed.
package testreport

import (
	"fmt"
	"strings"
	"time"
)

// Status of a test case, or of a whole run.
type Status string

const (
	Passed  Status = "passed"
	Failed  Status = "failed"  // an assertion or expectation failed
	Skipped Status = "skipped" // skipped or ignored
	Errored Status = "errored" // could not run to a verdict: runner error, os.Exit, timeout
	Crashed Status = "crashed" // the process died: signal, panic, uncaught exception
	// NoTests is a run status only: nothing ran and nothing failed.
	NoTests Status = "no_tests"
)

// KindTimeout is the Kind of an Errored case that its runner stopped at
// the runner's own time limit (CTest's TIMEOUT property or --timeout,
// meson test's timeout: times its multiplier); its Message says after how
// long: "timed out after 30.06 s".
const KindTimeout = "timeout"

// Case is one test.
type Case struct {
	Suite    string        `json:"suite,omitempty"`
	Name     string        `json:"name"`
	Status   Status        `json:"status"`
	Duration time.Duration `json:"duration_ns,omitempty"`
	Message  string        `json:"message,omitempty"` // failure message, bounded
	File     string        `json:"file,omitempty"`
	Line     int           `json:"line,omitempty"`
	// Kind says what failed the case when its status does not say all:
	// KindDataRace (File and Line are then where it happened), KindTimeout.
	Kind string `json:"kind,omitempty"`
	// OutputRef locates the case's output in a stored log (for example an
	// output-store id and line), set by callers that store the raw log.
	OutputRef string `json:"output_ref,omitempty"`
	// LogFile is the test's own log, where the runner keeps its output
	// apart from the run's (automake's NAME.log beside the test).
	LogFile string `json:"log_file,omitempty"`
	// Closing is the last non-blank line of the test program's own
	// output, where the runner keeps it (CTest's JUnit file, meson's
	// testlog.json): what HoldToClosings compares.
	Closing string `json:"-"`
	// OutputLines counts the lines of that output; 0 when unknown.
	OutputLines int `json:"-"`
	// outputKept: the runner kept the program's whole output (CTest's
	// JUnit system-out, not cut at its threshold), so Closing and
	// OutputLines are its end even when empty (HoldToFramework).
	outputKept bool
	// byFramework: the program's own test framework told its status,
	// message or place (adoptFramework).
	byFramework bool
	within      string // the framework's test that failed
	// overruled: the runner passed the case (exit 0) and the program's
	// own output says it did not; the runner's tally counts it passed.
	overruled bool
	// bySignalLine: a shell's signal line before the result made it
	// crashed; under the parallel harness it may have been another test's.
	bySignalLine bool
}

// Suite groups cases as the tool grouped them.
type Suite struct {
	Name     string        `json:"name"`
	Tests    int           `json:"tests"`
	Failures int           `json:"failures"`
	Errors   int           `json:"errors"`
	Skipped  int           `json:"skipped"`
	Duration time.Duration `json:"duration_ns,omitempty"`
}

// Totals are counted from the parsed cases.
type Totals struct {
	Total   int `json:"total"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	Errored int `json:"errored"`
	Crashed int `json:"crashed"`
}

// ToolSummary is what the tool itself printed as its tally, summed over the
// summary lines it printed ("Executed 4 tests, with 1 failure", "test result:
// FAILED. 1 passed; 2 failed;", "50% tests passed, 1 tests failed out of 2").
// Fields the tool does not print stay -1.
type ToolSummary struct {
	Total   int      `json:"total"`
	Passed  int      `json:"passed"`
	Failed  int      `json:"failed"`
	Skipped int      `json:"skipped"`
	Issues  int      `json:"issues,omitempty"`  // Swift Testing counts issues, not failed tests
	Verdict string   `json:"verdict,omitempty"` // "** TEST FAILED **" and the like
	Lines   []string `json:"lines,omitempty"`   // the summary lines, verbatim (bounded)
}

// CutShort is one test binary or runner that ended before it finished.
type CutShort struct {
	Suite string `json:"suite"`          // the package, test binary or runner
	Test  string `json:"test,omitempty"` // the test running when it ended; "" when none is known
	// How is what is known of the end: "exit 0", "exit status: 3", "the
	// output ended", "2 of 3 tests reported no result".
	How string `json:"how"`
	// Binary is the test binary that ended, when the runner named it
	// (cargo: "target/debug/deps/x-1a2b", relative to where cargo ran).
	Binary string `json:"binary,omitempty"`
}

// cutShort records a run that ended early.
func (r *Report) cutShort(suite, test, how string) {
	if len(r.CutShort) < maxErrors {
		r.CutShort = append(r.CutShort, CutShort{Suite: suite, Test: test, How: how})
	}
}

// Report is the result of parsing one run.
type Report struct {
	Format string  `json:"format"`
	Status Status  `json:"status"`
	Suites []Suite `json:"suites,omitempty"`
	Cases  []Case  `json:"cases,omitempty"`
	Totals Totals  `json:"totals"`
	// ToolSummary is nil when the tool printed no tally.
	ToolSummary *ToolSummary `json:"tool_summary,omitempty"`
	// BuildErrors are compiler and linker errors that stopped tests from
	// building (distinct lines, bounded).
	BuildErrors []string `json:"build_errors,omitempty"`
	// RunnerErrors are failures of the test runner rather than of a test:
	// "Early unexpected exit", "Failed to background test runner", a
	// simulator that did not boot, a Go package whose tests did not build.
	RunnerErrors []string `json:"runner_errors,omitempty"`
	// CutShort lists the runs that ended before they finished: a test that
	// started and never reached a result, or a test binary (a Go package, a
	// cargo test binary, a CTest run) whose own summary never came. Success
	// needs it empty: the runner's summary seen and every started test
	// finished.
	CutShort []CutShort `json:"cut_short,omitempty"`
	// CountMismatch is set when Totals disagree with ToolSummary.
	CountMismatch bool `json:"count_mismatch,omitempty"`
	// SilentFailure is set by ApplyExitCode: the exit status says failure
	// but nothing failed in the parsed output.
	SilentFailure bool     `json:"silent_failure,omitempty"`
	Notes         []string `json:"notes,omitempty"`

	crashSeen  bool // the output carried a crash indicator outside any case
	testEvents bool // test events were read (go test -json's package events)
}

const (
	maxMessage  = 4 << 10 // bytes kept of one failure message
	maxErrors   = 200     // build/runner errors kept
	maxSumLines = 20      // tool summary lines kept
)

// RanTests reports whether the output shows test activity: a test case, a
// test runner's tally or verdict, a runner error, a run cut short, a Go
// package's test events (whose tests may not have built). A log
// with none of these (compiler output, "** BUILD SUCCEEDED **") is a build
// log, whatever reader parsed it.
func (r *Report) RanTests() bool {
	if len(r.Cases) > 0 || len(r.RunnerErrors) > 0 || len(r.CutShort) > 0 || r.testEvents {
		return true
	}
	ts := r.ToolSummary
	if ts == nil {
		return false
	}
	return ts.Total >= 0 || ts.Failed >= 0 || ts.Passed >= 0 || strings.Contains(ts.Verdict, "TEST") || strings.HasPrefix(ts.Verdict, "test result")
}

// Failures returns the cases that did not pass or skip.
func (r *Report) Failures() []Case {
	var out []Case
	for _, c := range r.Cases {
		if c.Status == Failed || c.Status == Errored || c.Status == Crashed {
			out = append(out, c)
		}
	}
	return out
}

// ApplyExitCode records the run's exit status: a non-zero exit with no
// failure in the parsed output is a silent failure, never "all passed".
func (r *Report) ApplyExitCode(code int) {
	if code == 0 {
		return
	}
	if r.Totals.Failed+r.Totals.Errored+r.Totals.Crashed == 0 && len(r.BuildErrors) == 0 && len(r.RunnerErrors) == 0 && len(r.CutShort) == 0 {
		r.SilentFailure = true
		r.Notes = append(r.Notes, fmt.Sprintf("exit status %d but no failure was found in the output", code))
		if r.Status == Passed || r.Status == NoTests {
			r.Status = Errored
		}
	}
}

// finish computes Totals, Suites' counts, the run Status and the cross-check.
func (r *Report) finish() {
	r.Totals = Totals{}
	suites := map[string]int{}
	for i := range r.Suites {
		suites[r.Suites[i].Name] = i
	}
	for _, c := range r.Cases {
		r.Totals.Total++
		i, ok := suites[c.Suite]
		if !ok {
			i = len(r.Suites)
			suites[c.Suite] = i
			r.Suites = append(r.Suites, Suite{Name: c.Suite})
		}
		s := &r.Suites[i]
		s.Tests++
		s.Duration += c.Duration
		switch c.Status {
		case Passed:
			r.Totals.Passed++
		case Failed:
			r.Totals.Failed++
			s.Failures++
		case Skipped:
			r.Totals.Skipped++
			s.Skipped++
		case Errored:
			r.Totals.Errored++
			s.Errors++
		case Crashed:
			r.Totals.Crashed++
			s.Errors++
		}
	}
	r.Status = r.runStatus()
	r.crossCheck()
}

func (r *Report) runStatus() Status {
	t := r.Totals
	switch {
	case t.Crashed > 0 || r.crashSeen:
		return Crashed
	case t.Failed > 0 || len(r.BuildErrors) > 0:
		return Failed
	case t.Errored > 0 || len(r.RunnerErrors) > 0 || len(r.CutShort) > 0:
		return Errored
	}
	if ts := r.ToolSummary; ts != nil && (ts.Failed > 0 || isFailedVerdict(ts.Verdict)) {
		r.Notes = append(r.Notes, "the tool reports failure but no failed test was parsed")
		return Failed
	}
	if t.Passed > 0 {
		return Passed
	}
	return NoTests
}

func isFailedVerdict(v string) bool {
	return v != "" && (contains(v, "FAILED") || contains(v, "failed"))
}

func (r *Report) crossCheck() {
	ts := r.ToolSummary
	if ts == nil {
		return
	}
	check := func(what string, tool, parsed int) {
		if tool >= 0 && tool != parsed {
			r.CountMismatch = true
			r.Notes = append(r.Notes, fmt.Sprintf("count mismatch: the tool reports %d %s, %d parsed", tool, what, parsed))
		}
	}
	overruled := 0
	for _, c := range r.Cases {
		if c.overruled {
			overruled++
		}
	}
	check("tests", ts.Total, r.Totals.Total)
	check("failed", ts.Failed, r.Totals.Failed+r.Totals.Errored+r.Totals.Crashed-overruled)
}

func (r *Report) summary() *ToolSummary {
	if r.ToolSummary == nil {
		r.ToolSummary = &ToolSummary{Total: -1, Passed: -1, Failed: -1, Skipped: -1}
	}
	return r.ToolSummary
}

// addTally adds n to a ToolSummary field that may still be -1.
func addTally(field *int, n int) {
	if *field < 0 {
		*field = 0
	}
	*field += n
}

func (ts *ToolSummary) addLine(l string) {
	if len(ts.Lines) < maxSumLines {
		ts.Lines = append(ts.Lines, l)
	}
}

func addDistinct(list []string, s string) []string {
	if len(list) >= maxErrors {
		return list
	}
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func bound(s string) string {
	if len(s) > maxMessage {
		return s[:maxMessage] + "…"
	}
	return s
}
