// Package verdict turns a finished process and its output into a crash
// verdict: did it succeed, fail, crash, time out, get interrupted or fail
// silently, why, with which evidence, and what to call next.
//
// The model: spawn.Result says how the process ended (exit status, signal,
// core dump, timeout). A Scanner, fed every output line as it streams by,
// records which indicator patterns fired (a Go panic, an ASan report, an
// XCTest runner restarting after a crash, ...), whether the output claimed
// success, and the first source frame it can see. Classify combines both:
// the wait status decides first, then the output can only make things
// worse, never better. A run that exited 0 but printed a panic is a crash.
//
// The first line of every tool result is Verdict.Line, e.g.
//
//	CRASHED (SIGSEGV) in crash_here at segv.c:5 — core dump captured
//	CRASHED (exit 0, but output shows: Go panic)
//	FAILED (exit 3)
//	TIMED OUT after 5s — process group killed
package verdict

// Status is the outcome class of a run.
type Status string

const (
	StatusSuccess       Status = "success"
	StatusFailure       Status = "failure"
	StatusCrash         Status = "crash"
	StatusTimeout       Status = "timeout"
	StatusInterrupted   Status = "interrupted"
	StatusSilentFailure Status = "silent_failure"
)

// CrashType says what kind of failure it was.
type CrashType string

const (
	CrashNone               CrashType = "none"
	CrashSegmentationFault  CrashType = "segmentation_fault"
	CrashBusError           CrashType = "bus_error"
	CrashAbort              CrashType = "abort"
	CrashIllegalInstruction CrashType = "illegal_instruction"
	CrashFPException        CrashType = "fp_exception"
	CrashKilled             CrashType = "killed"
	CrashOOMKilled          CrashType = "oom_killed"
	CrashTerminated         CrashType = "terminated"
	CrashInterrupted        CrashType = "interrupted"
	CrashTimeout            CrashType = "timeout"
	CrashBuildFailure       CrashType = "build_failure"
	CrashTestFailure        CrashType = "test_failure"
	CrashTestRunnerCrash    CrashType = "test_runner_crash"
	CrashFatalError         CrashType = "fatal_error"
	CrashSanitizer          CrashType = "sanitizer"
	CrashPanic              CrashType = "panic"
	CrashSimulatorCrash     CrashType = "simulator_crash"
	CrashUnknown            CrashType = "unknown"
)

// Indicator is one output pattern that fired. Each pattern is kept once,
// with its first matching line and how many lines matched.
type Indicator struct {
	Pack   string    `json:"pack"` // ecosystem: go, rust, swift, xctest, c, sanitizer, jvm, python, build
	Name   string    `json:"name"` // human name, e.g. "Go panic"
	Type   CrashType `json:"type"`
	Crash  bool      `json:"crash"`   // decisive: makes the run a crash whatever the exit status
	Line   string    `json:"line"`    // the first matching line (truncated)
	LineNo int       `json:"line_no"` // 1-based
	Count  int       `json:"count"`   // lines that matched
}

// Evidence points at an artefact that explains the failure.
type Evidence struct {
	Kind    string `json:"kind"` // core_dump, crash_report, backtrace, log
	Path    string `json:"path,omitempty"`
	Summary string `json:"summary,omitempty"`
}

// Frame is a source location, the innermost frame of interest.
type Frame struct {
	Function string `json:"function,omitempty"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
}

// Hint names the next triage call that would help.
type Hint struct {
	Text string         `json:"text"`
	Tool string         `json:"tool,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// Verdict is the classified outcome of a run.
type Verdict struct {
	Status     Status      `json:"status"`
	CrashType  CrashType   `json:"crash_type"`
	Signal     string      `json:"signal,omitempty"` // "SIGSEGV", also when inferred from a shell's exit 128+N
	ExitCode   int         `json:"exit_code"`        // -1 when killed by a signal
	Meaning    string      `json:"meaning,omitempty"`
	Line       string      `json:"line"` // the verdict line
	Indicators []Indicator `json:"indicators,omitempty"`
	Evidence   []Evidence  `json:"evidence,omitempty"`
	Hints      []Hint      `json:"hints,omitempty"`
	CrashFrame *Frame      `json:"crash_frame,omitempty"`
	// ClaimedSuccess is the success marker the output printed (for example
	// "** BUILD SUCCEEDED **") when the verdict is not success.
	ClaimedSuccess string `json:"claimed_success,omitempty"`
}

// OK reports whether the run succeeded.
func (v Verdict) OK() bool { return v.Status == StatusSuccess }
