package run

import (
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/toolchain"
	"github.com/triage-dev/triage/internal/workflow/render"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// untilFailRuns is until_fail's repeat when none is given.
const untilFailRuns = 100

// repeatTests is test with repeat: the tests run repeat times (each run
// an output of its own, its answer stored with it), and the answer is the
// tally's verdict (FLAKY, passed or failed N of N) with each test's
// distinct failures, above the answer of the run that shows the first
// failure (else the last run).
func (h *handler) repeatTests(ctx context.Context, c *catalog.Call, r planRequest) (catalog.Result[BuildTestOutput], error) {
	if r.repeat.Times == 0 && !r.repeat.UntilFail {
		return catalog.Result[BuildTestOutput]{}, fault.Usagef("parallel, cpu and race stress a repeat: give repeat (the runs) too")
	}
	if r.repeat.Times == 0 {
		r.repeat.Times = untilFailRuns
	}
	call, err := r.call(ctx, h.svc)
	if err != nil {
		return catalog.Result[BuildTestOutput]{}, err
	}
	call.Tool, call.Budget = c.Tool, h.svc.Config.BudgetBytes()/2
	call.Limit = limitOf(c, r.timeoutS, h.svc.Config)
	call.Progress = func(lines int64, msg string) { c.Progress(ctx, float64(lines), 0, msg) }
	call.Answer = func(d *pipeline.Called) any { return r.render(d).Output }
	rep, err := pipeline.RepeatTests(ctx, call, r.repeat)
	if err != nil {
		return catalog.Result[BuildTestOutput]{}, err
	}
	if len(rep.Runs) == 0 { // interrupted before the first run
		return catalog.Result[BuildTestOutput]{}, ctx.Err()
	}
	if rep.Stopped != nil && len(rep.Runs) == 1 { // the first run's own answer says why
		answer := r.render(rep.Stopped.Called)
		answer.Output.Tests = answer.Output.Tests.Listed()
		return render.StoreFailure(answer, rep.Stopped.Output), nil
	}
	shown := shownRun(rep)
	answer := r.renderRepeat(rep, shown)
	keepTally(ctx, call.Store, store.Meta{Tool: call.Tool, Argv: []string{"repeat"}, Cwd: call.ProjectDir},
		&answer.Text, rep.Label(shown)+" (shown below)", store.Final{Status: answer.Output.Status, VerdictLine: answer.Output.Verdict}, answer.Output)
	return render.StoreFailure(answer, rep.Runs[shown].Output), nil
}

// keepTally keeps a repeat's answer as an output of its own, which the
// web page shows with its runs (render.Keep), and says where in text,
// before the line that begins with shown.
func keepTally(ctx context.Context, st *store.Store, m store.Meta, text *string, shown string, f store.Final, answer any) {
	id, err := render.Keep(ctx, st, m, *text, f, answer)
	if err == nil {
		kept := fmt.Sprintf("the tally is kept as output %s (the web page shows its runs)\n", id)
		*text = strings.Replace(*text, "\n"+shown, "\n"+kept+shown, 1)
	}
}

// shownRun is the run whose answer a repeat's shows: the first failure of
// the most failing test, else the last run.
func shownRun(rep pipeline.Repeated) int {
	f := rep.Flakiness
	if len(f.Tests) > 0 && len(f.Tests[0].Groups) > 0 {
		if k := f.Tests[0].Groups[0].FirstRun; k >= 1 {
			return rep.Holding(k)
		}
	}
	return len(rep.Runs) - 1
}

// renderRepeat is the repeat's answer: the tally's verdict and groups,
// then run shown's answer under a line that says which run it is.
func (r planRequest) renderRepeat(rep pipeline.Repeated, shown int) catalog.Result[BuildTestOutput] {
	run := r.render(rep.Runs[shown].Called)
	f := rep.Flakiness
	out := run.Output
	out.Verdict, out.Status = f.Verdict(), string(pipeline.Succeeded)
	run.Outcome = catalog.OK
	if len(f.Tests) > 0 {
		out.Status, run.Outcome = string(pipeline.Failed), catalog.Failed
	}
	var b strings.Builder
	b.WriteString(out.Verdict + "\n")
	f.WriteText(&b)
	if s := rep.Stopped; s != nil {
		fmt.Fprintf(&b, "stopped: run %d did not judge its tests: %s (output %s)\n", rep.Flakiness.Runs+1, s.Called.Result.Line, s.Output.ID)
		if run.Outcome == catalog.OK {
			out.Status, run.Outcome = string(s.Called.Result.Status), catalog.Failed
		}
	}
	line, rest, _ := strings.Cut(run.Text, "\n")
	fmt.Fprintf(&b, "%s (shown below): %s\n%s", rep.Label(shown), line, rest)
	if out.Tests == nil {
		out.Tests = &wire.TestReport{}
	}
	tests := *out.Tests.Listed()
	tests.Repeat = &f
	out.Tests = &tests
	return catalog.Result[BuildTestOutput]{Text: b.String(), Output: out, Outcome: run.Outcome}
}

// repeatHint is the next call after a test call whose tests failed: the
// failed tests alone, repeatedly, to tell a flaky failure from a real
// one. None for a repeat itself, or a run with no failed test.
func (r planRequest) repeatHint(res *pipeline.Result, tc string) []wire.Hint {
	if r.repeat.Times != 0 || r.repeat.UntilFail || res.Status.OK() || res.Report == nil {
		return nil
	}
	var names []string
	seen := map[string]bool{}
	for _, c := range res.Report.Failures() {
		if !seen[c.Name] {
			seen[c.Name] = true
			names = append(names, c.Name)
		}
	}
	if h, ok := toolchain.RepeatHint(tc, r.testCall(), names); ok {
		return []wire.Hint{wire.Hint(h)}
	}
	return nil
}
