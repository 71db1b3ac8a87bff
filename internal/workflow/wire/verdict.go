package wire

import (
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/verdict"
)

// Verdict is how a run ended.
type Verdict struct {
	Status         string      `json:"status" jsonschema:"success, failure, crash, timeout or interrupted"`
	CrashType      string      `json:"crash_type" jsonschema:"the crash taxonomy's class, \"none\" for no crash"`
	Signal         string      `json:"signal,omitempty" jsonschema:"SIGSEGV and the like"`
	ExitCode       int         `json:"exit_code" jsonschema:"-1 when a signal ended it"`
	Meaning        string      `json:"meaning,omitempty" jsonschema:"what the exit code or signal usually means"`
	Line           string      `json:"line" jsonschema:"the verdict line"`
	Indicators     []Indicator `json:"indicators,omitempty" jsonschema:"crash and failure lines found in the output"`
	Evidence       []Evidence  `json:"evidence,omitempty" jsonschema:"core dumps, crash reports and backtraces behind the verdict"`
	Hints          []Hint      `json:"hints,omitempty" jsonschema:"what to do next"`
	CrashFrame     *Location   `json:"crash_frame,omitempty" jsonschema:"the first frame in the project's own code"`
	ClaimedSuccess string      `json:"claimed_success,omitempty" jsonschema:"a success line the output printed although the run did not succeed"`
	// MemoryError is set by the tools that rerun a crash (run), not by
	// VerdictOf. It sits in the verdict rather than at the result's top
	// level because tools/list names top-level fields only: here it costs
	// every tools/list nothing.
	MemoryError *MemoryError `json:"memory_error,omitempty" jsonschema:"run: a crash that looked like memory corruption, rerun under valgrind memcheck: its first memory error, or why none"`
	// Repeat is run's tally over its runs with repeat (the verdict
	// above is one run's); here for the same reason as MemoryError.
	Repeat *testreport.Flakiness `json:"repeat,omitempty"`
}

// Indicator is a line of output that tells of a crash or failure.
type Indicator struct {
	Pack   string `json:"pack" jsonschema:"ecosystem: go, rust, swift, xctest, c, sanitizer, ..."`
	Name   string `json:"name" jsonschema:"e.g. Go panic"`
	Type   string `json:"type" jsonschema:"crash type it implies"`
	Crash  bool   `json:"crash" jsonschema:"decisive: a crash whatever the exit status"`
	Line   string `json:"line" jsonschema:"the first matching line (cut)"`
	LineNo int    `json:"line_no" jsonschema:"its 1-based line number"`
	Count  int    `json:"count" jsonschema:"lines that matched"`
}

// Evidence is a file or record behind a verdict.
type Evidence struct {
	Kind    string `json:"kind" jsonschema:"core_dump, crash_report, backtrace or log"`
	Path    string `json:"path,omitempty"`
	Summary string `json:"summary,omitempty"`
}

// Hint is a next step, with the tool call that takes it when there is one.
type Hint struct {
	Text string         `json:"text"`
	Tool string         `json:"tool,omitempty" jsonschema:"the tool to call"`
	Args map[string]any `json:"args,omitempty" jsonschema:"its arguments"`
}

// Location is a place in source code.
type Location struct {
	Function string `json:"function,omitempty"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty" jsonschema:"1-based"`
}

// VerdictOf converts a verdict.
func VerdictOf(v verdict.Verdict) Verdict {
	return Verdict{
		Status: string(v.Status), CrashType: string(v.CrashType), Signal: v.Signal, ExitCode: v.ExitCode,
		Meaning: v.Meaning, Line: v.Line, Indicators: list(v.Indicators, indicatorOf),
		Evidence: list(v.Evidence, evidenceOf), Hints: HintsOf(v.Hints),
		CrashFrame: ptr(v.CrashFrame, locationOf), ClaimedSuccess: v.ClaimedSuccess,
	}
}

// HintsOf converts hints.
func HintsOf(hs []verdict.Hint) []Hint {
	return list(hs, func(h verdict.Hint) Hint { return Hint(h) })
}

func indicatorOf(i verdict.Indicator) Indicator {
	return Indicator{Pack: i.Pack, Name: i.Name, Type: string(i.Type), Crash: i.Crash, Line: i.Line, LineNo: i.LineNo, Count: i.Count}
}

func evidenceOf(e verdict.Evidence) Evidence { return Evidence(e) }

func locationOf(f verdict.Frame) Location { return Location(f) }
