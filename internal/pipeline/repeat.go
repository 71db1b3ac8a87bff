package pipeline

import (
	"context"
	"fmt"
	"slices"
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

// Repeat asks for a test call's tests run Times times, stopping at the
// first run with a failure when UntilFail.
type Repeat struct {
	Times     int
	UntilFail bool
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
}

// RepeatTests runs c's tests rp.Times times, each run through BuildOrTest
// with its own output: the first run builds, later runs repeat only the
// test step (go test, cargo test and make test rebuild nothing that is
// up to date; go test's cached results are turned off). c.Timeout bounds
// the whole repeat. The runs' failures are tallied by signature
// (testreport.Tally). The error is the first run's, as BuildOrTest's;
// a later run's ends the repeat as Stopped would.
func RepeatTests(ctx context.Context, c Call, rp Repeat) (Repeated, error) {
	if rp.Times < 1 || rp.Times > MaxRepeat {
		return Repeated{}, fault.Usagef("repeat: from 1 to %d runs, not %d", MaxRepeat, rp.Times)
	}
	if c.Coverage != "" || c.Options.Coverage {
		return Repeated{}, fault.Usagef("repeat and coverage do not go together: measure coverage with one run")
	}
	var deadline time.Time
	if c.Timeout > 0 {
		deadline = time.Now().Add(c.Timeout)
	}
	var out Repeated
	tally := testreport.NewTally(rp.Times)
	for i := 1; i <= rp.Times && ctx.Err() == nil; i++ {
		run, ok := c.repeatRunCall(i, rp.Times, deadline)
		if !ok {
			break // the time limit is reached
		}
		rr, err := run.repeatOnce(ctx)
		if err != nil {
			if i == 1 {
				return out, err
			}
			break
		}
		out.Runs = append(out.Runs, rr)
		if !judged(rr.Called.Result, deadline) {
			out.Stopped = &out.Runs[len(out.Runs)-1]
			break
		}
		occ := Occurrences(rr.Called.Result)
		tally.Add(rr.Output.ID, occ)
		if rp.UntilFail && len(occ) > 0 {
			break
		}
	}
	out.Flakiness = tally.Result()
	return out, nil
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
		if len(s.Argv) >= 2 && s.Argv[0] == "go" && s.Argv[1] == "test" &&
			!slices.ContainsFunc(s.Argv, func(a string) bool { return strings.HasPrefix(a, "-count") }) {
			s.Argv = slices.Insert(slices.Clone(s.Argv), 2, "-count=1")
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return steps
	}
	return out
}
