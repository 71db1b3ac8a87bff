package run

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/toolchain"
	"github.com/triage-dev/triage/internal/workflow/render"
)

// ranOnce is one run of a repeated run: its answer, what the store kept,
// and how it ended.
type ranOnce struct {
	answer  catalog.Result[RunOutput]
	output  capture.Result
	outcome *capture.Outcome
	err     error
	ran     bool // false for a run never made
}

// runRepeated is run with repeat: the program runs repeat times (each run
// an output of its own, its answer stored with it; timeout_s bounds the
// whole), parallel of them at once, and the answer is the tally's verdict
// (FLAKY, succeeded or failed N of N) with the distinct failures, above
// the answer of the run that shows the first failure (else the last
// run); the tally is kept as an output of its own.
func (h *handler) runRepeated(ctx context.Context, c *catalog.Call, in runParams, req capture.Request, check capture.Check, st *store.Store) (catalog.Result[RunOutput], error) {
	times := in.Repeat
	if times == 0 && !in.UntilFail {
		return catalog.Result[RunOutput]{}, fault.Usagef("parallel runs copies of a repeat: give repeat (the runs) too")
	}
	if times == 0 {
		times = untilFailRuns
	}
	if times < 1 || times > pipeline.MaxRepeat || in.Parallel < 0 || in.Parallel > pipeline.MaxParallel {
		return catalog.Result[RunOutput]{}, fault.Usagef("repeat: from 1 to %d runs, not %d; parallel: at most %d at once", pipeline.MaxRepeat, times, pipeline.MaxParallel)
	}
	var deadline time.Time
	if req.Spec.Timeout > 0 {
		deadline = time.Now().Add(req.Spec.Timeout)
	}
	ran, _ := pipeline.InParallel(ctx, max(in.Parallel, 1), 1, times, func(i int) (ranOnce, bool) {
		return h.runAt(ctx, c, in, req, check, st, deadline, fmt.Sprintf("%s (run %d of %d)", filepath.Base(in.Program), i, times))
	})
	if len(ran) > 0 && ran[0].err != nil {
		return ran[0].answer, ran[0].err
	}
	runs, f, stopped := tallyRuns(ran, filepath.Base(in.Program), times, in.UntilFail, deadline)
	if len(runs) == 0 {
		return catalog.Result[RunOutput]{}, ctx.Err()
	}
	res := renderRunRepeat(runs, f, stopped)
	status := "success"
	if res.Outcome != catalog.OK {
		status = "failure"
	}
	keepTally(ctx, st, store.Meta{Tool: "run", Argv: append([]string{"repeat", in.Program}, in.Args...), Cwd: req.Spec.Dir},
		&res.Text, "run ", store.Final{Status: status, VerdictLine: f.RunVerdict()}, res.Output)
	return res, nil
}

// runAt is one run of a repeat, with the time left of the whole; stop
// when no other run is to start after it: an error, the time limit, an
// interruption, a failure under until_fail.
func (h *handler) runAt(ctx context.Context, c *catalog.Call, in runParams, req capture.Request, check capture.Check, st *store.Store, deadline time.Time, label string) (ranOnce, bool) {
	if !deadline.IsZero() {
		if req.Spec.Timeout = time.Until(deadline); req.Spec.Timeout <= 0 {
			return ranOnce{}, true
		}
	}
	if in.Stdin != "" {
		req.Spec.Stdin = strings.NewReader(in.Stdin) // each run reads its own
	}
	ran, err := h.runOnce(ctx, c, in, req, check, st, label)
	ran.err, ran.ran = err, err == nil
	if err != nil {
		return ran, true
	}
	return ran, runEnded(ran, deadline) || in.UntilFail && !ran.outcome.Verdict.OK()
}

// runEnded says whether a run ended the repeat uncounted: interrupted,
// or the repeat's time limit reached.
func runEnded(ran ranOnce, deadline time.Time) bool {
	r := ran.outcome.Result
	return r.Cancelled || r.TimedOut && !deadline.IsZero() && !time.Now().Before(deadline)
}

// tallyRuns tallies the runs in order up to the first not made, or that
// ended the repeat: the runs counted, the tally, and why the last run was
// not counted ("" when it was).
func tallyRuns(ran []ranOnce, name string, times int, untilFail bool, deadline time.Time) (runs []ranOnce, f testreport.Flakiness, stopped string) {
	tally := testreport.NewTally(times)
	for _, r := range ran {
		if !r.ran {
			break
		}
		runs = append(runs, r)
		if runEnded(r, deadline) {
			stopped = r.outcome.Verdict.Line
			break
		}
		occ := runOccurrences(name, r.outcome)
		tally.Add(r.output.ID, occ)
		if untilFail && len(occ) > 0 {
			break
		}
	}
	return runs, tally.Result(), stopped
}

// runOnce runs the program once, stored as run's own call is.
func (h *handler) runOnce(ctx context.Context, c *catalog.Call, in runParams, req capture.Request, check capture.Check, st *store.Store, label string) (ranOnce, error) {
	var ran ranOnce
	cr, err := capture.RunStored(ctx, capture.StoredRun{Tool: "run", Store: st, Budget: h.svc.Config.BudgetBytes() / 2, Request: req,
		Progress: progress(ctx, c, label),
		Answer: func(o *capture.Outcome, cr capture.Result) any {
			o.Verdict.Hints = append(toolchain.RunRebuildHints(o.NoDebugInfo, in.runCall()), o.Verdict.Hints...)
			ran.answer, ran.outcome = renderOutcome(o, cr), o
			return ran.answer.Output
		},
		Memcheck: capture.Memcheck{Off: in.Memcheck != nil && !*in.Memcheck, Notify: func(msg string) { c.Progress(ctx, 0, 0, msg) }},
		Check:    check})
	ran.output = cr
	return ran, err
}

// runOccurrences is a run's failure for the tally, none when it
// succeeded: the program, how it ended, and its crash function.
func runOccurrences(name string, o *capture.Outcome) []testreport.Occurrence {
	v := o.Verdict
	if v.OK() {
		return nil
	}
	occ := testreport.Occurrence{Test: name, Name: name, Kind: string(v.Status), Message: v.Line}
	if v.CrashFrame != nil {
		occ.Site = v.CrashFrame.Function
	} else if o.Trace != nil && len(o.Trace.Frames) > 0 {
		occ.Site = o.Trace.Frames[0].Function
	}
	return []testreport.Occurrence{occ}
}

// renderRunRepeat is the repeated run's answer: the tally's verdict and
// groups, then the shown run's answer (the first failure's, else the
// last run's) with the tally in its verdict.
func renderRunRepeat(runs []ranOnce, f testreport.Flakiness, stopped string) catalog.Result[RunOutput] {
	shown := len(runs) - 1
	if len(f.Tests) > 0 && len(f.Tests[0].Groups) > 0 {
		shown = min(f.Tests[0].Groups[0].FirstRun-1, shown)
	}
	res := runs[shown].answer
	res.Output.Verdict.Repeat = &f
	var b strings.Builder
	b.WriteString(f.RunVerdict() + "\n")
	f.WriteText(&b)
	res.Outcome = catalog.OK
	if len(f.Tests) > 0 {
		res.Outcome = catalog.Failed
	}
	if stopped != "" {
		fmt.Fprintf(&b, "stopped: run %d was not counted: %s (output %s)\n", len(runs), stopped, runs[len(runs)-1].output.ID)
		res.Outcome = catalog.Failed
	}
	line, rest, _ := strings.Cut(res.Text, "\n")
	fmt.Fprintf(&b, "run %d of %d (shown below): %s\n%s", shown+1, len(runs), line, rest)
	res.Text = b.String()
	return render.StoreFailure(res, runs[shown].output)
}
