package webui

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// The answer a run, build or test call gave is kept with its output
// (store.Final.Result) in the call's own shape: run's RunOutput, build and
// test's BuildTestOutput, the Xcode builds' and sim_build_run's. answer
// decodes the fields of all of them that a run's page shows; findingsOf
// turns them into one view: the evidence, the tests (failures first, and a
// strip per suite) and the diagnostics.
type answer struct {
	Verdict      json.RawMessage `json:"verdict"` // run: an object; the others: the line
	Core         string          `json:"core"`
	Backtrace    []frame         `json:"backtrace"`
	CrashSite    *crashSite      `json:"crash_site"` // run's
	Next         []hint          `json:"next"`       // build and test's
	Crash        *testCrash      `json:"crash"`
	Hang         *hangReport     `json:"hang"`
	Tests        *testReport     `json:"tests"`
	XCResult     *xcSummary      `json:"xcresult"`
	CrashReports []crashReport   `json:"crash_reports"`
	Launch       *struct {
		CrashReports []crashReport `json:"crash_reports"`
	} `json:"launch"`
	Diagnostics []diagnostic `json:"diagnostics"`
	Cut         []string     `json:"_cut"`
}

type runVerdict struct {
	Signal      string       `json:"signal"`
	Meaning     string       `json:"meaning"`
	Hints       []hint       `json:"hints"`
	Evidence    []evidence   `json:"evidence"`
	CrashFrame  *frame       `json:"crash_frame"`
	MemoryError *memoryError `json:"memory_error"`
}

// memoryError is a run under valgrind memcheck (wire.MemoryError): a
// crash's rerun, or a run with check: memory or leaks.
type memoryError struct {
	Outcome   string      `json:"outcome"`
	Summary   string      `json:"summary"`
	Why       string      `json:"why,omitempty"`
	Kind      string      `json:"kind,omitempty"`
	Site      *memorySite `json:"site,omitempty"`
	Allocated *memorySite `json:"allocated,omitempty"`
	Freed     *memorySite `json:"freed,omitempty"`
	Errors    int         `json:"errors,omitempty"`
	Reason    string      `json:"reason,omitempty"`
	OutputID  string      `json:"output_id,omitempty"` // valgrind's XML in the store
}

type memorySite struct {
	Function string `json:"function,omitempty"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
}

// frame is a stack frame; Project marks the crashing frame in the
// project's own code (the verdict's crash frame).
type frame struct {
	Index    int    `json:"index"`
	Function string `json:"function,omitempty"`
	Module   string `json:"module,omitempty"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Project  bool   `json:"project,omitempty"`
}

type evidence struct {
	Kind    string `json:"kind"`
	Path    string `json:"path,omitempty"`
	Summary string `json:"summary,omitempty"`
}

type testCrash struct {
	Test      string     `json:"test"`
	Signal    string     `json:"signal"`
	Message   string     `json:"message"`
	Core      string     `json:"core"`
	Backtrace []frame    `json:"backtrace"`
	Frame     *frame     `json:"frame"`
	NoCore    string     `json:"no_core"`
	Site      *crashSite `json:"site"`
	// MemoryError is the crashed test's rerun under memcheck.
	MemoryError *memoryError `json:"memory_error"`
}

type hangReport struct {
	Stacks []hangStack `json:"stacks"`
	Stuck  []struct {
		Stack  int    `json:"stack"`
		Reason string `json:"reason"`
		Test   string `json:"test"`
		Frame  frame  `json:"frame"`
	} `json:"stuck"`
}

type testReport struct {
	Cases        []testCase `json:"cases"`
	Totals       totals     `json:"totals"`
	BuildErrors  []string   `json:"build_errors"`
	RunnerErrors []string   `json:"runner_errors"`
}

type totals struct {
	Total   int `json:"total"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	Errored int `json:"errored"`
	Crashed int `json:"crashed"`
}

type testCase struct {
	Suite   string `json:"suite,omitempty"`
	Name    string `json:"name"`
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
}

type xcSummary struct {
	Failures []struct {
		TestName string `json:"test_name"`
		Text     string `json:"text"`
		Location string `json:"location"`
	} `json:"failures"`
}

type crashReport struct {
	Path      string `json:"path"`
	Process   string `json:"process,omitempty"`
	Exception string `json:"exception,omitempty"`
	Summary   string `json:"summary"`
	Role      string `json:"role,omitempty"`
}

type diagnostic struct {
	Kind    string `json:"kind"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Message string `json:"message"`
	Count   int    `json:"count,omitempty"`
}

// findings is what a run's page shows between its verdict and its output.
type findings struct {
	Core        string        `json:"core,omitempty"`
	CrashedTest string        `json:"crashed_test,omitempty"`
	Signal      string        `json:"signal,omitempty"`
	Message     string        `json:"message,omitempty"`
	Ending      string        `json:"ending,omitempty"` // a signalled run's signal and what it means
	Site        *crashSite    `json:"site,omitempty"`   // the crash site: source, arguments and locals, callers
	Next        []nextStep    `json:"next,omitempty"`   // the calls the answer suggests, as CLI commands
	NoCore      string        `json:"no_core,omitempty"`
	Memcheck    *memoryError  `json:"memcheck,omitempty"` // valgrind memcheck's report, shown first
	Frames      []frame       `json:"frames,omitempty"`   // the crashing thread's first look
	Evidence    []evidence    `json:"evidence,omitempty"` // the verdict's: core dumps, reports, backtraces
	Reports     []crashReport `json:"reports,omitempty"`  // crash report summaries
	Stuck       []stuck       `json:"stuck,omitempty"`    // a hang's stuck stacks
	Stacks      []stuck       `json:"stacks,omitempty"`   // a hang's stacks when none was seen stuck
	Tests       *tests        `json:"tests,omitempty"`
	Diagnostics []diagnostic  `json:"diagnostics,omitempty"`
	Cut         []string      `json:"cut,omitempty"` // what the kept answer had to leave out
	// A repeat's runs and a bisect's steps (findings_repeat.go).
	Repeat *repeatTally `json:"repeat,omitempty"`
	Bisect *bisectSteps `json:"bisect,omitempty"`
}

type stuck struct {
	Stack  string  `json:"stack"` // goroutine 7 (chan receive), thread 2 …
	Reason string  `json:"reason"`
	Test   string  `json:"test,omitempty"`
	Frames []frame `json:"frames"`
}

// tests are the parsed test results: every case, failures first, and per
// suite the statuses of its cases in the order they ran (the strip).
type tests struct {
	Totals       totals     `json:"totals"`
	Cases        []testCase `json:"cases"`
	Suites       []suite    `json:"suites"`
	BuildErrors  []string   `json:"build_errors,omitempty"`
	RunnerErrors []string   `json:"runner_errors,omitempty"`
}

type suite struct {
	Name  string `json:"name"`
	Cells []cell `json:"cells"`
}

type cell struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// findingsOf reads a kept answer; nil when there is none or it is not one.
func findingsOf(raw json.RawMessage) *findings {
	var a answer
	if len(raw) == 0 || json.Unmarshal(raw, &a) != nil {
		return nil
	}
	f := &findings{Core: a.Core, Frames: a.Backtrace, Diagnostics: a.Diagnostics, Cut: a.Cut, Reports: a.CrashReports}
	f.Site, f.Next = a.CrashSite, nextSteps(a.Next)
	var v runVerdict
	if json.Unmarshal(a.Verdict, &v) == nil { // run's verdict object
		f.Evidence, f.Memcheck = v.Evidence, v.MemoryError
		f.Ending, f.Next = ending(v), append(nextSteps(v.Hints), f.Next...)
		markProject(f.Frames, v.CrashFrame)
	}
	if c := a.Crash; c != nil {
		f.Core, f.CrashedTest, f.Signal, f.Message, f.NoCore = cmp.Or(c.Core, f.Core), c.Test, c.Signal, c.Message, c.NoCore
		if len(c.Backtrace) > 0 {
			f.Frames = c.Backtrace
		}
		markProject(f.Frames, c.Frame)
		f.Memcheck, f.Site = cmp.Or(c.MemoryError, f.Memcheck), cmp.Or(c.Site, f.Site)
	}
	if a.Launch != nil {
		f.Reports = append(f.Reports, a.Launch.CrashReports...)
	}
	f.Stuck, f.Stacks = a.Hang.view()
	f.Tests = testsOf(a.Tests, a.XCResult)
	f.Repeat, f.Bisect = repeatAndBisect(raw)
	if a.Crash != nil {
		f.Tests.placeCrash(a.Crash)
	}
	return f
}

// markProject marks the frames that are the verdict's crash frame.
func markProject(frames []frame, at *frame) {
	if at == nil || at.Function == "" && at.File == "" {
		return
	}
	for i, fr := range frames {
		if fr.Function == at.Function && fr.Line == at.Line && (fr.File == at.File || strings.HasSuffix(fr.File, "/"+at.File) || strings.HasSuffix(at.File, "/"+fr.File)) {
			frames[i].Project = true
		}
	}
}

// failedFirst orders statuses: crashed, failed, errored, then the rest.
var failedFirst = map[string]int{"crashed": 0, "failed": 1, "errored": 2}

// testsOf is the test view of a report and an Xcode result bundle's
// failures (those the log did not show); nil when there is neither.
func testsOf(r *testReport, xc *xcSummary) *tests {
	if r == nil && (xc == nil || len(xc.Failures) == 0) {
		return nil
	}
	t := &tests{Cases: []testCase{}, Suites: []suite{}}
	if r != nil {
		t.Totals, t.BuildErrors, t.RunnerErrors = r.Totals, r.BuildErrors, r.RunnerErrors
		t.Cases = append(t.Cases, r.Cases...)
	}
	if xc != nil {
		t.Cases = append(t.Cases, xcFailures(xc, t.Cases)...)
	}
	for _, c := range t.Cases { // the strip keeps the order they ran in
		name := cmp.Or(c.Suite, "tests")
		i := slices.IndexFunc(t.Suites, func(s suite) bool { return s.Name == name })
		if i < 0 {
			t.Suites = append(t.Suites, suite{Name: name})
			i = len(t.Suites) - 1
		}
		t.Suites[i].Cells = append(t.Suites[i].Cells, cell{Name: c.Name, Status: c.Status})
	}
	slices.SortStableFunc(t.Cases, func(a, b testCase) int {
		return cmp.Compare(rank(a.Status), rank(b.Status))
	})
	return t
}

func rank(status string) int {
	if r, ok := failedFirst[status]; ok {
		return r
	}
	return len(failedFirst)
}

// xcFailures are the result bundle's failures of tests cases does not
// already hold as failed, as failed cases (file:line from their location).
func xcFailures(xc *xcSummary, cases []testCase) []testCase {
	var out []testCase
	for _, f := range xc.Failures {
		if slices.ContainsFunc(cases, func(c testCase) bool { return c.Name == f.TestName && c.Status != "passed" }) {
			continue
		}
		c := testCase{Name: f.TestName, Status: "failed", Message: f.Text, File: f.Location}
		if i := strings.LastIndexByte(f.Location, ':'); i > 0 {
			if n, err := strconv.Atoi(f.Location[i+1:]); err == nil {
				c.File, c.Line = f.Location[:i], n
			}
		}
		out = append(out, c)
	}
	return out
}

// placeCrash gives the crashed test's case, which the runner's log left
// without a place, the crash's: its site, else the verdict's crash frame.
func (t *tests) placeCrash(c *testCrash) {
	file, line := "", 0
	switch {
	case c.Site != nil && c.Site.File != "":
		file, line = c.Site.File, c.Site.Line
	case c.Frame != nil && c.Frame.File != "":
		file, line = c.Frame.File, c.Frame.Line
	}
	if t == nil || file == "" {
		return
	}
	for i, k := range t.Cases {
		if k.Status == "crashed" && k.File == "" && (c.Test == "" || k.Name == c.Test || strings.HasSuffix(c.Test, k.Name)) {
			t.Cases[i].File, t.Cases[i].Line = file, line
		}
	}
}
