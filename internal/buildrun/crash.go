package buildrun

import (
	"context"
	"io"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/verdict"
)

// TestCrash describes a test process that died under the test runner.
type TestCrash struct {
	// Test is the test that was running ("" when the report names none).
	Test string `json:"test,omitempty"`
	// Signal is the signal that killed the test process, from its core or
	// the runner's words ("SIGSEGV", "SegFault"); "" when unknown (a Go
	// panic ends the test binary with exit status 2).
	Signal string `json:"signal,omitempty"`
	// Message is the crashed case's message (the panic, CTest's line).
	Message string `json:"message,omitempty"`
	// Core is the core dump the test process left, Program the executable
	// it ran; Backtrace the first-look backtrace of its crashing thread.
	Core      string           `json:"core,omitempty"`
	Program   string           `json:"program,omitempty"`
	Backtrace []coredump.Frame `json:"backtrace,omitempty"`
	// Frame is the crashing frame shown in the verdict line.
	Frame *coredump.Frame `json:"frame,omitempty"`
	// NoCore says why no core was found or read, when none was.
	NoCore string `json:"no_core,omitempty"`
}

// findTestCrash names the crashed test and looks for the core of the test
// process in dirs (relative core_pattern cores land in the process's working
// directory), or wherever core_pattern sends cores, since the step started.
// The crash is reported at the first frame in projectDir's code.
func findTestCrash(ctx context.Context, sr StepResult, rep *testreport.Report, dirs []string, projectDir string) *TestCrash {
	c := crashedTest(rep)
	c.Frame = messageFrame(c.Message, projectDir)
	res := sr.Outcome.Result
	if res.Signaled {
		// The runner itself died; runner looked for its core already.
		c.Signal = res.SignalName
		for _, a := range sr.Outcome.Artifacts {
			if a.Kind == "core" {
				c.Core = a.Path
				break
			}
		}
		if tr := sr.Outcome.Trace; tr != nil {
			c.Backtrace = tr.Frames
			if f, ok := tr.Crashing(projectDir); ok {
				c.Frame = &f
			}
		}
		c.NoCore = sr.Outcome.NoCore
		return c
	}
	arts, err := coredump.List(ctx, coredump.ListQuery{Since: res.Started, Dirs: slices.Compact(dirs), Limit: 5})
	if err != nil {
		c.NoCore = "looking for the test's core: " + err.Error()
		return c
	}
	for _, a := range arts {
		if a.Kind != "core" {
			continue
		}
		ci, err := coredump.OpenCore(a.Path)
		if err != nil {
			continue
		}
		c.Core, c.Program = a.Path, ci.ExePath
		if ci.SignalName != "" {
			c.Signal = ci.SignalName
		}
		tr, err := coredump.Backtrace(ctx, ci.ExePath, a.Path, coredump.BacktraceOptions{})
		if err != nil {
			c.NoCore = "backtracing the core: " + err.Error()
			return c
		}
		c.Backtrace = tr.Frames
		if f, ok := tr.Crashing(projectDir); ok {
			c.Frame = &f
		}
		return c
	}
	if c.Signal != "" {
		c.NoCore = "no core dump of the test process found since the tests started (check `ulimit -c` and core_pattern)"
	}
	return c
}

// messageFrame reads the crash frame from a crashed case's message (a Go
// panic's trace), by the verdict scanner's reading of traces; nil when the
// message shows none.
func messageFrame(msg, projectDir string) *coredump.Frame {
	if msg == "" {
		return nil
	}
	s := verdict.NewScanner()
	_, _ = io.WriteString(s, msg)
	s.Flush()
	f := s.CrashFrame(projectDir)
	if f == nil {
		return nil
	}
	return &coredump.Frame{Function: f.Function, File: f.File, Line: f.Line}
}

// crashedTest describes the first crashed case of a report, from the
// report alone.
func crashedTest(rep *testreport.Report) *TestCrash {
	c := &TestCrash{}
	for _, tc := range rep.Cases {
		if tc.Status == testreport.Crashed {
			c.Test, c.Message = qualifiedName(tc, rep.Format), tc.Message
			c.Signal = signalWord(c.Message)
			break
		}
	}
	return c
}

// qualifiedName names a case with its suite (a Go package, a Rust test
// binary), unless the suite is only the format's name for "all tests".
func qualifiedName(c testreport.Case, format string) string {
	if c.Suite == "" || c.Suite == format || strings.HasPrefix(c.Name, c.Suite) {
		return c.Name
	}
	return c.Suite + "/" + c.Name
}

// signalWords are runner phrases naming the signal that killed a test.
var signalWords = []struct{ word, signal string }{
	{"SegFault", "SIGSEGV"},
	{"SIGSEGV", "SIGSEGV"},
	{"Segmentation fault", "SIGSEGV"},
	{"SIGABRT", "SIGABRT"},
	{"Child aborted", "SIGABRT"},
	{"SIGBUS", "SIGBUS"},
	{"Bus error", "SIGBUS"},
	{"SIGILL", "SIGILL"},
	{"Illegal", "SIGILL"},
	{"SIGFPE", "SIGFPE"},
	{"Numerical", "SIGFPE"},
	{"SIGKILL", "SIGKILL"},
}

// signalWord finds the signal a crashed case's message names.
func signalWord(msg string) string {
	for _, w := range signalWords {
		if strings.Contains(msg, w.word) {
			return w.signal
		}
	}
	return ""
}
