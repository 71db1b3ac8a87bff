package pipeline

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/crashsite"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/verdict"
)

// TestCrash describes a test process that died under the test runner, or
// the process whose crash failed a build step (a generator a custom
// command ran: stepcores.go).
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
	// CoreNote says what the core is, and where it was moved from.
	CoreNote string `json:"core_note,omitempty"`
	// NoCore says why no core was found or read, when none was.
	NoCore string `json:"no_core,omitempty"`
	// NoDebugInfo names the file without debug info that keeps Frame from
	// having a file:line, when one does.
	NoDebugInfo *coredump.NoDebugInfo `json:"no_debug_info,omitempty"`
	// Site is the crash site: the core's (source, arguments, locals, fault
	// address), else the source around Frame (a Go panic's trace).
	Site *crashsite.Site `json:"site,omitempty"`
	// Memcheck is the crashed test's rerun under valgrind memcheck, when
	// its crash looked like memory corruption (memtest.go).
	Memcheck *capture.MemcheckRun `json:"-"`
	// core is the test's core as read, nil when none was: its fault
	// address tells a wild pointer from NULL.
	core *coredump.CoreInfo
}

// runnerCrash fills c from the test runner's own crash: the runner
// looked for its core already.
func runnerCrash(c *TestCrash, o *capture.Outcome, projectDir string) {
	c.Signal = o.Result.SignalName
	c.Core = o.Core()
	if tr := o.Trace; tr != nil {
		c.Backtrace = tr.Frames
		if f, ok := tr.Crashing(projectDir); ok {
			c.Frame = &f
		}
	}
	c.NoCore, c.NoDebugInfo, c.Site = o.NoCore, o.NoDebugInfo, o.Site
}

// fromCore fills c from the test's core: its signal, backtrace, crashing
// frame, and the test's name when only the backtrace tells it.
func (c *TestCrash) fromCore(ctx context.Context, ci *coredump.CoreInfo, core, projectDir string) {
	if ci.SignalName != "" {
		c.Signal = ci.SignalName
	}
	c.core = ci
	tr, err := coredump.Backtrace(ctx, ci.ExePath, core, coredump.BacktraceOptions{ProjectDir: projectDir})
	if err != nil {
		c.NoCore = "backtracing the core: " + err.Error()
		return
	}
	c.Backtrace = tr.Frames
	if f, ok := tr.Crashing(projectDir); ok {
		c.Frame = &f
	}
	c.NoDebugInfo = tr.MissingDebugInfo(ci, ci.ExePath, projectDir)
	c.Site = tr.Site
}

// sourceSite gives a crash with no site from its core the source around
// its frame (a relative path is the project's), when the file is there.
func (c *TestCrash) sourceSite(projectDir string) {
	if c == nil || c.Site != nil || c.Frame == nil {
		return
	}
	f := c.Frame
	if path, lines := crashsite.ReadSource(f.File, f.Line, projectDir); lines != nil {
		c.Site = &crashsite.Site{Index: -1, Function: f.Function, File: f.File, Line: f.Line, Path: path, Source: lines}
	}
}

// nameFromStack names the crashed test by the crashing thread's stack when
// it runs a Rust test: that wins over the log, where a test is unnamed (a
// parallel libtest names tests as they finish) or misnamed (another test's
// "test x ... " cut from its result by the abort). The report follows.
func (c *TestCrash) nameFromStack(rep *testreport.Report) {
	name := rustTestInBacktrace(c.Backtrace)
	if name == "" || c.Test == name || strings.HasSuffix(c.Test, "/"+name) {
		return
	}
	if rep != nil {
		for _, tc := range rep.Cases {
			if tc.Status == testreport.Crashed && qualifiedName(tc, rep.Format) == c.Test {
				rep.MoveCrash(tc.Suite, tc.Name, name, "the crashing thread's stack runs this test")
				c.Test = qualifiedName(testreport.Case{Suite: tc.Suite, Name: name}, rep.Format)
				return
			}
		}
	}
	c.Test = name
}

// startTestCrash is what the report says of a test crash, and whether that
// is all there is to find: when the runner itself crashed, capture looked
// for its core already.
func startTestCrash(sr StepResult, rep *testreport.Report, projectDir string) (*TestCrash, bool) {
	c := crashedTest(rep)
	c.Frame = messageFrame(c.Message, projectDir)
	if sr.Outcome.Result.Signaled {
		runnerCrash(c, sr.Outcome, projectDir)
		return c, true
	}
	return c, false
}

// findTestCrash names the crashed test and looks for the core of the test
// process: a core of the step's run (its process group, a child of its
// leader in a group of its own, a test program its runner names:
// coredump.FindGroup) written since the step started, in dirs or below
// them (relative core_pattern cores land in the crashing process's working
// directory: CTest's build/tests, a crate's directory, meson's build
// directory or a test's workdir), and of the crashed process itself when
// the run names it (crashedProc: its pid, else its executable). Cores found
// in the user's tree are moved into keep, when set. The crash is reported
// at the first frame in projectDir's code.
func findTestCrash(ctx context.Context, sr StepResult, rep *testreport.Report, dirs []string, projectDir, keep string) (c *TestCrash) {
	defer func() { c.sourceSite(projectDir) }()
	c, done := startTestCrash(sr, rep, projectDir)
	if done {
		return c
	}
	res := sr.Outcome.Result
	progs := sr.programs(ctx).withReport(rep, sr.Step.Dir) // testprograms.go, ctestprograms.go
	dirs = slices.Compact(append(dirs, progs.dirsOf(rep)...))
	arts, err := coredump.FindGroup(ctx, coredump.GroupQuery{Since: res.Started, Pgid: res.Pid, Dirs: dirs, Exes: progs.exes()})
	if err != nil {
		c.NoCore = "looking for the test's core: " + err.Error()
		return c
	}
	if len(arts) == 0 {
		// Piped core handlers (systemd-coredump, apport) keep cores apart.
		arts, _ = coredump.List(ctx, coredump.ListQuery{Since: res.Started, Limit: 5})
	}
	arts, found := keepCores(arts, keep, dirs)
	crashed, _ := firstCrashed(rep)
	want := crashedProc(sr, rep, c.Message, progs.of(crashed.Name).Exe)
	foreign := ""
	for _, a := range coreOfTest(arts, c.Test) {
		ci, err := coredump.OpenCore(a.Path)
		if err != nil {
			continue
		}
		if !ci.IsOf(want) {
			// Another process's core (a later crash overwrote ./core):
			// never this crash's evidence, but said.
			if foreign == "" {
				foreign = foreignCore(ci, found[a.Path], a.Path, want)
			}
			continue
		}
		if other, ok := crashedCaseOfCore(rep, ci, progs); ok && qualifiedName(other, rep.Format) != c.Test {
			// The core is another crashed test's (this one's was overwritten
			// or not written): name the test the evidence is of.
			c.Test, c.Message = qualifiedName(other, rep.Format), other.Message
		}
		c.Core, c.Program, c.CoreNote = a.Path, ci.ExePath, a.Note
		c.fromCore(ctx, ci, a.Path, projectDir)
		c.nameFromStack(rep)
		return c
	}
	switch {
	case foreign != "":
		c.NoCore = "no core of the crashed test: " + foreign
	case c.Signal != "":
		c.NoCore = "no core dump of the test process found since the tests started (check `ulimit -c` and core_pattern)"
	}
	return c
}

// foreignCore says that the core at path, found in dir, is not of the
// crashed process want.
func foreignCore(ci *coredump.CoreInfo, dir, path string, want coredump.Proc) string {
	s := ci.NotOf(dir, "the crashed test", want)
	if filepath.Dir(path) != dir {
		s += "; kept as " + path
	}
	return s
}

// keepCores moves the cores found in dirs (the user's tree) into keep,
// when set, and maps each core's path to the directory it was found in.
func keepCores(arts []coredump.Artifact, keep string, dirs []string) ([]coredump.Artifact, map[string]string) {
	kept := arts
	if keep != "" {
		kept = capture.KeepCores(arts, keep, dirs)
	}
	found := make(map[string]string, len(arts))
	for i, a := range arts {
		found[kept[i].Path] = filepath.Dir(a.Path)
	}
	return kept, found
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

// coreOfTest orders the cores found so that the crashed test's comes
// first: the core whose program has the test's name, else the oldest
// (the first crashed test of a run that crashed several times).
func coreOfTest(arts []coredump.Artifact, test string) []coredump.Artifact {
	var cores []coredump.Artifact
	for _, a := range arts {
		if a.Kind == "core" {
			cores = append(cores, a)
		}
	}
	slices.SortStableFunc(cores, func(a, b coredump.Artifact) int { return a.ModTime.Compare(b.ModTime) })
	if test == "" {
		return cores
	}
	for i, a := range cores {
		if ci, err := coredump.OpenCore(a.Path); err == nil && (filepath.Base(ci.ExePath) == test || ci.Program == test) {
			return append([]coredump.Artifact{a}, append(cores[:i:i], cores[i+1:]...)...)
		}
	}
	return cores
}

// crashedCaseOf finds the crashed case whose name is the core's program.
func crashedCaseOf(rep *testreport.Report, ci *coredump.CoreInfo) (testreport.Case, bool) {
	return crashedCaseOfCore(rep, ci, nil)
}

// crashedCaseOfCore finds the crashed case whose program (progs: the
// runner's word) the core ran, else whose name is the core's program.
func crashedCaseOfCore(rep *testreport.Report, ci *coredump.CoreInfo, progs testPrograms) (testreport.Case, bool) {
	if rep == nil {
		return testreport.Case{}, false
	}
	for _, tc := range rep.Cases {
		if exe := progs.of(tc.Name).Exe; tc.Status == testreport.Crashed && exe != "" && ci.IsOf(coredump.Proc{Exe: exe}) {
			return tc, true
		}
	}
	for _, tc := range rep.Cases {
		if tc.Status == testreport.Crashed && (tc.Name == filepath.Base(ci.ExePath) || tc.Name == ci.Program) {
			return tc, true
		}
	}
	return testreport.Case{}, false
}

// rustTestInBacktrace names the libtest test a backtrace ran in: libtest
// calls each test through FnOnce::call_once on the closure that wraps it,
// "core::ops::function::FnOnce::call_once<crashy::tests::aborts::{closure_env#0}, ()>".
// The test's name is that path without its crate: "tests::aborts".
func rustTestInBacktrace(frames []coredump.Frame) string {
	const call, env = "FnOnce::call_once<", "::{closure_env#0}"
	for _, f := range frames {
		i := strings.Index(f.Function, call)
		if i < 0 {
			continue
		}
		arg := f.Function[i+len(call):]
		j := strings.Index(arg, env)
		if j < 0 || strings.ContainsAny(arg[:j], "<>(), ") {
			continue
		}
		if _, name, ok := strings.Cut(arg[:j], "::"); ok && name != "" {
			return name
		}
	}
	return ""
}

// crashedTest describes the first crashed case of a report, from the
// report alone.
func crashedTest(rep *testreport.Report) *TestCrash {
	c := &TestCrash{}
	if tc, ok := firstCrashed(rep); ok {
		c.Test, c.Message = qualifiedName(tc, rep.Format), tc.Message
		c.Signal = signalWord(c.Message)
	}
	return c
}

// firstCrashed is the first crashed case of a report.
func firstCrashed(rep *testreport.Report) (testreport.Case, bool) {
	if rep != nil {
		for _, tc := range rep.Cases {
			if tc.Status == testreport.Crashed {
				return tc, true
			}
		}
	}
	return testreport.Case{}, false
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
	{"Subprocess aborted", "SIGABRT"},
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
