package pipeline

import (
	"context"
	"fmt"
	"io"
	"maps"
	"time"

	"github.com/triage-dev/triage/internal/testreport"
)

// A test program's framework is known from the program itself
// (testreport.ProgramFramework: a bounded scan of its ELF file), so that a
// Catch2 program that exits 0 without printing anything, or a doctest one
// that exits 0 after its banner, is cut short whatever its output says
// (testreport.HoldToFramework); and the program cut short is rerun alone,
// once, with its framework's streaming reporter, to name the case it ended
// in (testreport.RunningCase). Only the runner's report file's tests are
// looked at (CTest's JUnit file keeps each program's whole output), and
// only those whose output does not already say (ProgramSuspects).

// Bounds of the rerun that names the running case.
const (
	maxCaseReruns = 1                // programs rerun per test step
	caseRerunPast = 5 * time.Second  // past the test's own run time
	caseRerunMax  = 30 * time.Second // whatever the test's time
	caseRerunTail = 256 << 10        // output kept to read the case from
)

// rerunCaseWhy is how a case named by the rerun is known.
const rerunCaseWhy = "named by rerunning the program alone with its framework's reporter"

// holdToFrameworks holds the report file's suspect tests to their
// programs' frameworks' summaries, and names the case a program cut short
// ended in.
func (res *Result) holdToFrameworks(ctx context.Context, sr StepResult, jr *testreport.Report) {
	suspects := jr.ProgramSuspects()
	if len(suspects) == 0 || ctx.Err() != nil {
		return
	}
	progs := sr.programs(ctx).withReport(jr, sr.Step.Dir)
	frameworks := map[string]string{} // by program
	reruns := 0
	for _, name := range suspects {
		p := progs.of(name)
		if p.Exe == "" || len(p.Argv) == 0 {
			continue
		}
		fw, ok := frameworks[p.Exe]
		if !ok {
			fw = testreport.ProgramFramework(p.Exe)
			frameworks[p.Exe] = fw
		}
		if fw == "" {
			continue
		}
		if testreport.PrintsSummary(fw, p.Argv[1:]) {
			jr.HoldToFramework(name, fw)
		}
		if jr.IsCutShort(name) && reruns < maxCaseReruns && testreport.RunningArgs(fw) != nil {
			reruns++
			res.nameRunningCase(ctx, sr, jr, name, fw, p)
		}
	}
}

// nameRunningCase reruns test's program alone with its framework's
// streaming reporter, bounded to a few seconds past the test's own time,
// and names the case it ended in; a note says when it could not.
func (res *Result) nameRunningCase(ctx context.Context, sr StepResult, jr *testreport.Report, test, fw string, p testProgram) {
	ran := sr.Outcome.Result.Duration
	for _, c := range jr.Cases {
		if c.Name == test && c.Duration > 0 {
			ran = c.Duration
		}
	}
	timeout := min(ran+caseRerunPast, caseRerunMax)
	if dl, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(dl))
	}
	if timeout <= 0 {
		return
	}
	step := sr.Step
	step.Dir = testDir(sr.Step, p)
	if len(p.Env) > 0 {
		step.Env = merged(step.Env, p.Env)
	} else {
		step.Env = maps.Clone(step.Env)
	}
	argv := append(append([]string(nil), p.Argv...), testreport.RunningArgs(fw)...)
	tail := &tailBuffer{max: caseRerunTail}
	stopped := runHere(ctx, argv, step, timeout, io.Writer(tail))
	running, ok := testreport.RunningCase(tail.bytes())
	switch {
	case ok && stopped == "":
		jr.NameRunning(test, running, rerunCaseWhy)
	case ok:
		res.Notes = append(res.Notes, fmt.Sprintf("rerun of %s alone to name its running case: %s, in %s (not proof: it did not end by itself)", test, stopped, running.Name))
	case stopped != "":
		res.Notes = append(res.Notes, fmt.Sprintf("rerun of %s alone to name its running case: %s before it named one", test, stopped))
	default:
		res.Notes = append(res.Notes, fmt.Sprintf("rerun of %s alone to name its running case: it ended after closing every case it began (%s's reporter)", test, fw))
	}
}
