package pipeline

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/memcheck"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/toolchain"
)

// A test whose crash looks like memory corruption (capture's rule, the
// one a run's crash is judged by) is rerun alone under valgrind memcheck,
// never the whole suite: its program and arguments as its runner names
// them (CTest's listing, meson's introspection: testprograms.go), an
// automake test's program under the build directory, or, for a plain
// make, the program its core names. The rerun names the bad access where
// it happens, above the crash site, where the crash is only its symptom.

// memcheckCrash reruns the crashed test alone under memcheck when its
// crash looks like memory corruption (TestCrash.Memcheck); tests on a host
// are not rerun.
func (res *Result) memcheckCrash(ctx context.Context, req Request) {
	c := res.Crash
	if c == nil || req.Memcheck.Off || req.Remote != nil || res.Kind != KindTest || ctx.Err() != nil {
		return
	}
	sr, ok := res.testStep()
	if !ok {
		return
	}
	crash := testCrashFacts(sr, res.Report, c, req.ProjectDir)
	if ok, _ := crash.LooksLikeCorruption(); !ok {
		return // a NULL dereference costs nothing more
	}
	opts, ran, err := testRerunOptions(ctx, sr, res.Report, c)
	c.Memcheck = req.Memcheck.RerunCrash(ctx, req.Store, crash, opts, ran, err)
}

// testStep is the run's test step, when it ran.
func (res *Result) testStep() (StepResult, bool) {
	for _, sr := range res.Steps {
		if sr.Ran && sr.Step.Name == toolchain.StepTest && sr.Outcome != nil && sr.Outcome.Result != nil {
			return sr, true
		}
	}
	return StepResult{}, false
}

// testCrashFacts is the crash in capture's terms: the runner's own when it
// died (capture looked at it already), else the test's core and
// backtrace, and the crash lines of the test's message and of the run's
// output.
func testCrashFacts(sr StepResult, rep *testreport.Report, c *TestCrash, projectDir string) capture.Crash {
	if sr.Outcome.Result.Signaled {
		return capture.CrashOf(sr.Outcome, projectDir)
	}
	crash := capture.Crash{Signal: c.Signal, Core: c.core, Frames: c.Backtrace, ProjectDir: projectDir}
	crash.Lines = strings.Split(c.Message, "\n")
	if tc, ok := crashedCase(rep, c.Test); ok {
		if tc.Message != c.Message {
			crash.Lines = append(crash.Lines, strings.Split(tc.Message, "\n")...)
		}
		crash.Lines = append(crash.Lines, logTail(tc.LogFile)...)
	}
	for _, in := range sr.Outcome.Verdict.Indicators {
		crash.Lines = append(crash.Lines, in.Line)
	}
	return crash
}

// maxLogTail bounds what is read of a test's own log: glibc's words on a
// corrupted heap are its last, before the abort.
const maxLogTail = 64 << 10

// logTail is the last lines of a test's own log (automake's NAME.log, an
// absolute path once read: ReadTestLogs), where its crash lines are; nil
// without one.
func logTail(path string) []string {
	if path == "" || !filepath.IsAbs(path) {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil
	} else if st.Size() > maxLogTail {
		if _, err := f.Seek(st.Size()-maxLogTail, io.SeekStart); err != nil {
			return nil
		}
	}
	b, _ := io.ReadAll(io.LimitReader(f, maxLogTail))
	return strings.Split(string(b), "\n")
}

// crashedCase is the report's crashed case named test (as TestCrash names
// it), else its first crashed case.
func crashedCase(rep *testreport.Report, test string) (testreport.Case, bool) {
	if rep == nil {
		return testreport.Case{}, false
	}
	for _, tc := range rep.Cases {
		if tc.Status == testreport.Crashed && qualifiedName(tc, rep.Format) == test {
			return tc, true
		}
	}
	return firstCrashed(rep)
}

// testRerunOptions is the crashed test's program as memcheck reruns it,
// and how long it ran (the rerun's limit is a multiple of it); the error
// says why the program is not known.
func testRerunOptions(ctx context.Context, sr StepResult, rep *testreport.Report, c *TestCrash) (memcheck.Options, time.Duration, error) {
	step, res := sr.Step, sr.Outcome.Result
	if res.Signaled { // the step's own program died: an explicit test command
		argv := append([]string(nil), step.Argv...)
		if res.Path != "" {
			argv[0] = res.Path
		}
		return memcheck.Options{Argv: argv, Dir: step.Dir, Env: step.Env}, res.Duration, nil
	}
	tc, ok := crashedCase(rep, c.Test)
	if !ok {
		return plainMakeRerun(step, c, res.Duration)
	}
	ran := res.Duration
	if tc.Duration > 0 {
		ran = tc.Duration
	}
	if rep.Format == testreport.FormatCargo {
		return cargoRerun(step, tc, c, ran)
	}
	p := sr.programs(ctx).withReport(rep, step.Dir).of(tc.Name)
	if len(p.Argv) == 0 {
		return memcheck.Options{}, ran, fmt.Errorf("the test runner does not say which program %s ran", qualifiedName(tc, rep.Format))
	}
	env := maps.Clone(step.Env)
	if len(p.Env) > 0 {
		env = merged(env, p.Env)
	}
	return memcheck.Options{Argv: p.Argv, Dir: testDir(step, p), Env: env}, ran, nil
}

// testDir is where the runner runs the test: its own directory when the
// runner says (CTest's WORKING_DIRECTORY, meson's workdir), else meson's
// build directory, else the runner's (automake runs TESTS from the build
// directory).
func testDir(step toolchain.Step, p testProgram) string {
	switch {
	case p.Dir != "":
		return p.Dir
	case step.Format == testreport.FormatMeson || step.ReportFormat == toolchain.MesonTestlogFormat:
		return mesonBuildDir(step)
	}
	return step.Dir
}

// plainMakeRerun is the program of a crash no report names (a Makefile's
// test target): the one whose core was found, with the command line the
// core keeps (pr_psargs, cut at 80 bytes: a line that long may be cut, and
// is not guessed at), run where make ran.
func plainMakeRerun(step toolchain.Step, c *TestCrash, ran time.Duration) (memcheck.Options, time.Duration, error) {
	if c.core == nil || c.Program == "" {
		return memcheck.Options{}, ran, fmt.Errorf("no core of the crashed program names it")
	}
	const psargs = 80 // the kernel's ELF_PRARGSZ
	args := strings.Fields(c.core.Args)
	if len(c.core.Args) >= psargs-1 || len(args) == 0 || filepath.Base(args[0]) != filepath.Base(c.Program) {
		return memcheck.Options{}, ran, fmt.Errorf("the core of %s does not keep its whole command line", filepath.Base(c.Program))
	}
	argv := append([]string{c.Program}, args[1:]...)
	return memcheck.Options{Argv: argv, Dir: step.Dir, Env: step.Env}, ran, nil
}

// cargoRerun is a crashed libtest test alone: its test binary (its core's
// program, else the one cargo's line names) with the test's name as
// filter and --exact, in the crate's directory (where cargo runs it).
func cargoRerun(step toolchain.Step, tc testreport.Case, c *TestCrash, ran time.Duration) (memcheck.Options, time.Duration, error) {
	exe := c.Program
	for line := range strings.SplitSeq(c.Message, "\n") {
		if exe != "" {
			break
		}
		exe = procOfLine(strings.TrimSpace(line)).Exe
	}
	switch {
	case tc.Name == testreport.UnnamedCase:
		// The whole binary would be its tests, not the one that crashed.
		return memcheck.Options{}, ran, fmt.Errorf("the run does not name the test that crashed")
	case exe == "":
		return memcheck.Options{}, ran, fmt.Errorf("neither a core nor cargo names the test binary %s ran in", tc.Name)
	}
	return memcheck.Options{Argv: []string{exe, tc.Name, "--exact"}, Dir: step.Dir, Env: step.Env}, ran, nil
}

// merged is base with over's variables on top (a new map).
func merged(base, over map[string]string) map[string]string {
	out := make(map[string]string, len(base)+len(over))
	maps.Copy(out, base)
	maps.Copy(out, over)
	return out
}
