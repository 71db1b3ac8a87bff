package wire

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/testreport"
)

// TestReport is a parsed test run.
type TestReport struct {
	Format        string       `json:"format" jsonschema:"the runner's output format"`
	Status        string       `json:"status"`
	Suites        []TestSuite  `json:"suites,omitempty"`
	Cases         []TestCase   `json:"cases,omitempty"` // failures first, so that a cut answer keeps them
	Totals        TestTotals   `json:"totals"`
	ToolSummary   *ToolSummary `json:"tool_summary,omitempty" jsonschema:"the runner's own tally, when it printed one"`
	BuildErrors   []string     `json:"build_errors,omitempty" jsonschema:"errors that kept tests from building"`
	RunnerErrors  []string     `json:"runner_errors,omitempty" jsonschema:"failures of the runner rather than of a test"`
	CutShort      []CutShort   `json:"cut_short,omitempty" jsonschema:"runs that ended before they finished"`
	CountMismatch bool         `json:"count_mismatch,omitempty" jsonschema:"the totals disagree with the runner's tally"`
	SilentFailure bool         `json:"silent_failure,omitempty" jsonschema:"the exit status says failure but no test failed"`
	Notes         []string     `json:"notes,omitempty"`
	// Repeat is a repeated test call's tally over its runs (the report
	// above is one run's): here rather than beside tests, where it would
	// cost tokens in every tools/list.
	Repeat *testreport.Flakiness `json:"repeat,omitempty"`
}

// TestSuite is one suite's counts.
type TestSuite struct {
	Name     string        `json:"name"`
	Tests    int           `json:"tests"`
	Failures int           `json:"failures"`
	Errors   int           `json:"errors"`
	Skipped  int           `json:"skipped"`
	Duration time.Duration `json:"duration_ns,omitempty"`
}

// TestCase is one test and how it ended.
type TestCase struct {
	Suite     string        `json:"suite,omitempty"`
	Name      string        `json:"name"`
	Status    string        `json:"status"`
	Duration  time.Duration `json:"duration_ns,omitempty"`
	Message   string        `json:"message,omitempty" jsonschema:"failure message (cut)"`
	File      string        `json:"file,omitempty"`
	Line      int           `json:"line,omitempty" jsonschema:"1-based"`
	Kind      string        `json:"kind,omitempty" jsonschema:"what failed it when the status does not say: data_race"`
	OutputRef string        `json:"output_ref,omitempty" jsonschema:"where its output is in the stored log"`
	LogFile   string        `json:"log_file,omitempty" jsonschema:"the test's own log"`
}

// TestTotals counts the cases.
type TestTotals struct {
	Total   int `json:"total"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	Errored int `json:"errored"`
	Crashed int `json:"crashed"`
}

// ToolSummary is the runner's own tally.
type ToolSummary struct {
	Total   int      `json:"total"`
	Passed  int      `json:"passed"`
	Failed  int      `json:"failed"`
	Skipped int      `json:"skipped"`
	Issues  int      `json:"issues,omitempty"`
	Verdict string   `json:"verdict,omitempty" jsonschema:"e.g. ** TEST FAILED **"`
	Lines   []string `json:"lines,omitempty" jsonschema:"the summary lines, verbatim"`
}

// CutShort is a run that ended before it finished.
type CutShort struct {
	Suite  string `json:"suite" jsonschema:"package, test binary or runner"`
	Test   string `json:"test,omitempty" jsonschema:"the test running when it ended"`
	How    string `json:"how" jsonschema:"what is known of the end"`
	Binary string `json:"binary,omitempty"`
}

// TestCrash is a test process that crashed.
type TestCrash struct {
	Test        string       `json:"test,omitempty" jsonschema:"the test that was running"`
	Signal      string       `json:"signal,omitempty"`
	Message     string       `json:"message,omitempty"`
	Core        string       `json:"core,omitempty" jsonschema:"core dump path"`
	Program     string       `json:"program,omitempty" jsonschema:"the test executable"`
	Backtrace   []Frame      `json:"backtrace,omitempty" jsonschema:"crashing thread's frames"`
	Frame       *Frame       `json:"frame,omitempty" jsonschema:"the crashing frame of the verdict line"`
	CoreNote    string       `json:"core_note,omitempty"`
	NoCore      string       `json:"no_core,omitempty" jsonschema:"why no core was found or read"`
	NoDebugInfo *NoDebugInfo `json:"no_debug_info,omitempty" jsonschema:"the file whose missing debug info keeps frame from a file:line"`
	Site        *CrashSite   `json:"site,omitempty" jsonschema:"source, arguments and locals of the first frame in the project's code; a memory fault's address"`
}

// TestReportOf converts a test report, nil for nil.
func TestReportOf(r *testreport.Report) *TestReport {
	return ptr(r, func(r testreport.Report) TestReport {
		w := TestReport{
			Format: r.Format, Status: string(r.Status), Totals: TestTotals(r.Totals),
			ToolSummary: ptr(r.ToolSummary, func(s testreport.ToolSummary) ToolSummary { return ToolSummary(s) }),
			BuildErrors: r.BuildErrors, RunnerErrors: r.RunnerErrors,
			CountMismatch: r.CountMismatch, SilentFailure: r.SilentFailure, Notes: r.Notes,
		}
		w.Suites = list(r.Suites, func(s testreport.Suite) TestSuite { return TestSuite(s) })
		w.Cases = list(failuresFirst(r.Cases), testCaseOf)
		w.CutShort = list(r.CutShort, func(c testreport.CutShort) CutShort { return CutShort(c) })
		return w
	})
}

// maxPassedListed bounds the passed cases an answer lists. The agent acts
// on the cases that did not pass; a run of hundreds of tests would
// otherwise fill its answer with names (a Go module's 200: 16 of its
// 20 KB, encoded, written and decoded on the call's path). The totals count
// every one, and the stored answer (the run's page) and log keep them.
const maxPassedListed = 20

// Listed is r as a tool's answer gives it: every case that did not pass,
// and the first maxPassedListed that passed, with a note of how many more
// passed. r itself is left whole, for the stored answer.
func (r *TestReport) Listed() *TestReport {
	if r == nil {
		return nil
	}
	passed := 0
	for _, c := range r.Cases {
		if c.Status == string(testreport.Passed) {
			passed++
		}
	}
	if passed <= maxPassedListed {
		return r
	}
	out := *r
	out.Cases = make([]TestCase, 0, len(r.Cases)-passed+maxPassedListed)
	listed := 0
	for _, c := range r.Cases {
		if c.Status == string(testreport.Passed) {
			if listed == maxPassedListed {
				continue
			}
			listed++
		}
		out.Cases = append(out.Cases, c)
	}
	out.Notes = append(slices.Clip(r.Notes), fmt.Sprintf("cases lists %d of the %d passed tests; the log has every one", listed, passed))
	return &out
}

// failuresFirst orders the cases that did not pass before those that did,
// each in run order: an answer over its budget loses the end of its biggest
// list first.
func failuresFirst(cases []testreport.Case) []testreport.Case {
	out := slices.Clone(cases)
	slices.SortStableFunc(out, func(a, b testreport.Case) int {
		return cmp.Compare(passedRank(a), passedRank(b))
	})
	return out
}

func passedRank(c testreport.Case) int {
	if c.Status == testreport.Passed || c.Status == testreport.Skipped {
		return 1
	}
	return 0
}

func testCaseOf(c testreport.Case) TestCase {
	return TestCase{
		Suite: c.Suite, Name: c.Name, Status: string(c.Status), Duration: c.Duration, Message: c.Message,
		File: c.File, Line: c.Line, Kind: c.Kind, OutputRef: c.OutputRef, LogFile: c.LogFile,
	}
}

// TestCrashOf converts a crashed test, nil for nil.
func TestCrashOf(c *pipeline.TestCrash) *TestCrash {
	return ptr(c, func(c pipeline.TestCrash) TestCrash {
		return TestCrash{
			Test: c.Test, Signal: c.Signal, Message: c.Message, Core: c.Core, Program: c.Program,
			Backtrace: FramesOf(c.Backtrace), Frame: ptr(c.Frame, FrameOf), CoreNote: c.CoreNote,
			NoCore: c.NoCore, NoDebugInfo: NoDebugInfoOf(c.NoDebugInfo), Site: CrashSiteOf(c.Site),
		}
	})
}
