package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/crashsite"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/toolpath"
)

// A test program cut short by an exit in a test (Check's START_TEST, a
// project's own runner) names no case, and has no reporter that would: it
// is rerun alone, once, under gdb, stopped at its exit_group system call,
// and the stack there says who called exit (the first frame in the
// project's own code) and in which test case (the test-definition macro
// around a frame's line, testreport.CaseAt). gdb runs in batch with argv
// alone (startup-with-shell off), in a process group of its own that
// spawn reaps, bounded to a few seconds past the test's own time.

// exitGDBCommands stop the program at its exit and print the stack. The
// marker is the one coredump.ParseGDBBacktrace reads the stack after.
var exitGDBCommands = []string{
	"-iex", "set debuginfod enabled off",
	"-ex", "set pagination off",
	"-ex", "set width 0",
	"-ex", "set confirm off",
	"-ex", "set startup-with-shell off",
	"-ex", "catch syscall exit_group",
	"-ex", "run",
	"-ex", `echo TRIAGE-BT-BEGIN\n`,
	"-ex", "bt",
	"-ex", "kill",
}

// exitRerunEnv is what a framework's program needs to end as it did under
// its runner: Check counts a test that exits 0 in a process of its own as
// passed, so a Check program cut short by one ran its tests in its own
// process (CK_FORK=no, which automake suites set in TESTS_ENVIRONMENT).
var exitRerunEnv = map[string]map[string]string{"Check": {"CK_FORK": "no"}}

// exitSiteWhy is how a case named from the stack at the exit is known.
const exitSiteWhy = "named by rerunning the program alone under gdb, stopped at its exit"

// nameExitSite reruns the first cut-short program of rep whose running
// case no line named, under gdb, and names the case and the exit's caller.
func (res *Result) nameExitSite(ctx context.Context, sr StepResult, rep *testreport.Report, projectDir string) {
	if rep == nil || sr.Outcome.Result.TimedOut || sr.Outcome.Result.Cancelled || ctx.Err() != nil {
		return
	}
	test := ""
	for _, cs := range rep.CutShort {
		if cs.Test != "" && rep.IsCutShort(cs.Test) {
			test = cs.Test
			break
		}
	}
	if test == "" {
		return
	}
	p := sr.programs(ctx).withReport(rep, sr.Step.Dir).of(test)
	gdb, err := toolpath.GDB.Find()
	if p.Exe == "" || len(p.Argv) == 0 || err != nil {
		return
	}
	step := sr.Step
	step.Dir = testDir(sr.Step, p)
	fw := testreport.ProgramFramework(p.Exe)
	step.Env = merged(merged(step.Env, p.Env), exitRerunEnv[fw])
	argv := append(append([]string{gdb, "-nx", "-batch"}, exitGDBCommands...), "--args")
	tail := &tailBuffer{max: caseRerunTail}
	stopped := runHere(ctx, append(argv, p.Argv...), step, exitRerunLimit(ctx, sr, rep, test), tail)
	if stopped != "" {
		res.Notes = append(res.Notes, fmt.Sprintf("rerun of %s alone under gdb to name its running case: %s", test, stopped))
		return
	}
	trace, err := coredump.ParseGDBBacktrace(string(tail.bytes()))
	if err != nil {
		return
	}
	if running, ok := exitRunning(trace.Frames, fw, []string{step.Dir, sr.Step.Dir, projectDir}, projectDir); ok {
		rep.NameRunning(test, running, exitSiteWhy)
	}
}

// exitRerunLimit is the rerun's bound: the test's own time (the step's
// when the report has none) and a few seconds more for gdb, within the
// run's deadline.
func exitRerunLimit(ctx context.Context, sr StepResult, rep *testreport.Report, test string) time.Duration {
	ran := sr.Outcome.Result.Duration
	for _, c := range rep.Cases {
		if c.Name == test && c.Duration > 0 {
			ran = c.Duration
		}
	}
	limit := min(ran+caseRerunPast, caseRerunMax)
	if dl, ok := ctx.Deadline(); ok {
		limit = min(limit, time.Until(dl))
	}
	return max(limit, time.Millisecond)
}

// exitRunning reads the stack at the exit: the case of the innermost
// frame inside a test-definition macro's body (its file looked for in
// dirs when relative), and the exit's caller, the first frame in the
// project's own code. ok is false when no frame is in a test case: the
// program ended by itself, after its tests.
func exitRunning(frames []coredump.Frame, framework string, dirs []string, projectDir string) (testreport.Running, bool) {
	for _, f := range frames {
		name, ok := caseOfFrame(f, framework, dirs)
		if !ok {
			continue
		}
		r := testreport.Running{Name: name}
		if i := crashsite.Pick(coredump.SiteFrames(frames), projectDir); i >= 0 && frames[i].File != "" {
			at := frames[i]
			r.Site = fmt.Sprintf("exit called in %s at %s:%d", at.Function, filepath.Base(at.File), at.Line)
		}
		return r, true
	}
	return testreport.Running{}, false
}

// caseOfFrame is the test case whose body holds the frame's line; in a
// Check program, a test's function (START_TEST(name) makes name_fn) names
// it when its source is not found.
func caseOfFrame(f coredump.Frame, framework string, dirs []string) (string, bool) {
	if f.File == "" || f.Line <= 0 {
		return "", false
	}
	paths := []string{f.File}
	if !filepath.IsAbs(f.File) {
		paths = paths[:0]
		for _, d := range dirs {
			if d != "" {
				paths = append(paths, filepath.Join(d, f.File))
			}
		}
	}
	for _, p := range paths {
		if name, ok := testreport.CaseAt(p, f.Line); ok {
			return name, true
		}
	}
	if name, ok := strings.CutSuffix(f.Function, "_fn"); ok && framework == "Check" && name != "" && !strings.ContainsAny(name, " :<(") {
		return name, true
	}
	return "", false
}
