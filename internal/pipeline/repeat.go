package pipeline

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/toolchain"
)

// MaxRepeat bounds a repeat's runs: the call's time limit bounds the
// whole, this its store entries.
const MaxRepeat = 1000

// MaxParallel bounds a repeat's copies at once.
const MaxParallel = 64

// Repeat asks for a test call's tests run Times times, stopping at the
// first run with a failure when UntilFail. The stress options: Parallel
// runs that many copies at once (triage's loop); CPU (go test's -cpu
// list) and Race (-race) go to every go test of the repeat.
type Repeat struct {
	Times     int
	UntilFail bool
	Parallel  int
	CPU       []string
	Race      bool
}

// RepeatRun is one run of a repeat: the finished call and what the store
// kept of it (each run is an output of its own, its answer stored with it).
type RepeatRun struct {
	Called *Called
	Output capture.Result
}

// Repeated is a finished repeat.
type Repeated struct {
	Runs      []RepeatRun
	Flakiness testreport.Flakiness
	// Stopped is the run that ended the repeat without judging its tests:
	// a build that failed, no tests, the call's time limit reached, an
	// interruption. Nil when every run was judged.
	Stopped *RepeatRun
	// firsts are the first run each of Runs holds: run k is in Runs[i]
	// for the last i whose firsts[i] <= k (a runner's one process holds
	// many).
	firsts []int
}

// Label names Runs[i] by the runs it holds: "run 3 of 8", or "runs 1
// to 8 of 8" for a runner's one process.
func (r Repeated) Label(i int) string {
	first, last := i+1, i+1
	if i < len(r.firsts) {
		first, last = r.firsts[i], r.Flakiness.Runs
		if i+1 < len(r.firsts) {
			last = r.firsts[i+1] - 1
		}
	}
	if last <= first {
		return fmt.Sprintf("run %d of %d", first, r.Flakiness.Runs)
	}
	return fmt.Sprintf("runs %d to %d of %d", first, last, r.Flakiness.Runs)
}

// Holding is the index in Runs of the output that holds run k (1-based).
func (r Repeated) Holding(k int) int {
	i := 0
	for j, f := range r.firsts {
		if f <= k {
			i = j
		}
	}
	return min(i, len(r.Runs)-1)
}

// RepeatTests runs c's tests rp.Times times. Where the runner repeats
// tests itself (go test -count=N in one process; ctest --repeat
// until-fail:N) it does, and each run's outcomes are read from its one
// output (runnerrepeat.go); else each run goes through BuildOrTest with
// its own output: the first run builds, later runs repeat only the test
// step (go test, cargo test and make test rebuild nothing that is up to
// date; go test's cached results are turned off), rp.Parallel of them at
// once. c.Timeout bounds the whole repeat. The runs' failures are tallied
// by signature (testreport.Tally). The error is the first run's, as
// BuildOrTest's; a later run's ends the repeat as Stopped would.
func RepeatTests(ctx context.Context, c Call, rp Repeat) (Repeated, error) {
	runner, err := c.checkRepeat(rp)
	if err != nil {
		return Repeated{}, err
	}
	var deadline time.Time
	if c.Timeout > 0 {
		deadline = time.Now().Add(c.Timeout)
	}
	c.repeatArgs = rp.goArgs()
	var out Repeated
	tally := testreport.NewTally(rp.asked(runner))
	from := 1
	if runner != "" {
		if from, err = c.repeatInRunner(ctx, rp, runner, deadline, &out, tally); err != nil || from == 0 {
			out.Flakiness = tally.Result()
			return out, err
		}
		rp.Times = rp.asked(runner) // the rest, one run a process
	}
	err = c.repeatLoop(ctx, rp, from, deadline, &out, tally)
	out.Flakiness = tally.Result()
	return out, err
}

// checkRepeat refuses a repeat out of bounds, with coverage, or with go
// test's options under another runner; runner is the runner that
// repeats the tests itself ("go", "ctest"), "" for triage's loop.
func (c Call) checkRepeat(rp Repeat) (runner string, err error) {
	if rp.Times < 1 || rp.Times > MaxRepeat {
		return "", fault.Usagef("repeat: from 1 to %d runs, not %d", MaxRepeat, rp.Times)
	}
	if rp.Parallel < 0 || rp.Parallel > MaxParallel {
		return "", fault.Usagef("parallel: from 1 to %d copies at once, not %d", MaxParallel, rp.Parallel)
	}
	if c.Coverage != "" || c.Options.Coverage {
		return "", fault.Usagef("repeat and coverage do not go together: measure coverage with one run")
	}
	argv := c.testArgv()
	goTest := isGoTest(argv)
	if (len(rp.CPU) > 0 || rp.Race) && !goTest && argv != nil {
		return "", fault.Usagef("cpu and race are go test's (-cpu, -race): for another runner, use check: \"thread\"")
	}
	return runnerOf(argv, goTest, rp, c.Remote == nil), nil
}

// repeatLoop is triage's loop over runs from to rp.Times into out and
// tally, rp.Parallel at once after the first run (which builds).
func (c Call) repeatLoop(ctx context.Context, rp Repeat, from int, deadline time.Time, out *Repeated, tally *testreport.Tally) error {
	for i := from; i <= rp.Times && ctx.Err() == nil; i++ {
		if rp.Parallel > 1 && i > 1 {
			for _, r := range c.repeatParallel(ctx, rp, i, deadline) {
				if !out.take(r, rp, deadline, tally) {
					break
				}
			}
			return nil
		}
		run, ok := c.repeatRunCall(i, rp.Times, deadline)
		if !ok {
			break // the time limit is reached
		}
		rr, err := run.repeatOnce(ctx)
		if err != nil && i == 1 {
			return err
		}
		if !out.take(ranRun{run: rr, err: err, done: true}, rp, deadline, tally) {
			break
		}
	}
	return nil
}

// take tallies a finished run; false when the repeat ends with it.
func (out *Repeated) take(r ranRun, rp Repeat, deadline time.Time, tally *testreport.Tally) bool {
	if !r.done || r.err != nil {
		return false
	}
	out.Runs = append(out.Runs, r.run)
	out.firsts = append(out.firsts, tally.Runs()+1)
	if !judged(r.run.Called.Result, deadline) {
		out.Stopped = &out.Runs[len(out.Runs)-1]
		return false
	}
	occ := Occurrences(r.run.Called.Result)
	tally.Add(r.run.Output.ID, occ)
	return !rp.UntilFail || len(occ) == 0
}

// repeatRunCall is c as run i of n, with the time left of the whole; not
// ok when none is left.
func (c Call) repeatRunCall(i, n int, deadline time.Time) (Call, bool) {
	run := c
	run.repeatRun = i
	if !deadline.IsZero() {
		if run.Timeout = time.Until(deadline); run.Timeout <= 0 {
			return run, false
		}
	}
	if c.Progress != nil {
		run.Progress = func(lines int64, msg string) { c.Progress(lines, fmt.Sprintf("run %d of %d: %s", i, n, msg)) }
	}
	return run, true
}

// repeatOnce runs c once, keeping the finished call its answer was made
// from.
func (c Call) repeatOnce(ctx context.Context) (RepeatRun, error) {
	var called *Called
	answer := c.Answer
	c.Answer = func(d *Called) any {
		called = d
		if answer == nil {
			return nil
		}
		return answer(d)
	}
	cr, err := BuildOrTest(ctx, c)
	if err != nil {
		return RepeatRun{}, err
	}
	return RepeatRun{Called: called, Output: cr}, nil
}

// judged reports whether a run's tests ran to a verdict of their own: not
// a build that failed (a test package's too), a run without tests, an
// interruption, or the call's time limit (a hang before it, a stall, is
// the tests').
func judged(res *Result, deadline time.Time) bool {
	switch res.Status {
	case Interrupted, NoTests:
		return false
	case TimedOut:
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			return false
		}
	}
	if res.Failed != nil && res.Failed.Step.Name != toolchain.StepTest {
		return false
	}
	return res.Report == nil || len(res.Report.BuildErrors) == 0
}

// Occurrences are a run's failures for a repeat's tally: each failed,
// errored or crashed test with its crash or stuck function, or the run's
// own verdict when it failed without naming a test; none when it passed.
func Occurrences(res *Result) []testreport.Occurrence {
	if res.Status.OK() {
		return nil
	}
	var occ []testreport.Occurrence
	if res.Report != nil {
		for _, c := range res.Report.Failures() {
			occ = append(occ, testreport.Occurrence{Test: c.Title(res.Report.Format), Name: c.Name,
				Kind: c.StatusText(), Message: c.Message, Site: failureSite(res, c)})
		}
	}
	if len(occ) == 0 {
		o := testreport.Occurrence{Kind: string(res.Status), Message: res.Line}
		if res.Crash != nil && res.Crash.Frame != nil {
			o.Site = res.Crash.Frame.Function
		}
		occ = append(occ, o)
	}
	return occ
}

// failureSite is the function a crashed test crashed in, or that a test
// that did not finish was stuck in; "" when unknown, or for a test that
// failed its assertions (its message tells it).
func failureSite(res *Result, c testreport.Case) string {
	if c.Status == testreport.Failed {
		return ""
	}
	if c.Status == testreport.Crashed && res.Crash != nil && res.Crash.Frame != nil {
		return res.Crash.Frame.Function
	}
	if res.Hang == nil {
		return ""
	}
	for _, s := range res.Hang.Stuck {
		if s.Test == "" || s.Test == c.Name || strings.HasSuffix(c.Name, "/"+s.Test) {
			return s.Frame.Function
		}
	}
	return ""
}

// repeatSteps are a repeat's run's steps: the first run's all, a later
// run's only its test steps (the first built). go test never answers
// from its cache in a repeat: every run runs the tests.
func (c *Call) repeatSteps(steps []toolchain.Step) []toolchain.Step {
	if c.repeatRun == 0 {
		return steps
	}
	var out []toolchain.Step
	for _, s := range steps {
		if c.repeatRun > 1 && s.Name != toolchain.StepTest {
			continue
		}
		s.Argv = c.repeatArgv(s.Argv)
		out = append(out, s)
	}
	if len(out) == 0 {
		return steps
	}
	return out
}
