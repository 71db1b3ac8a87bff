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
}

// runRepeated is run with repeat: the program runs repeat times (each run
// an output of its own, its answer stored with it; timeout_s bounds the
// whole), and the answer is the tally's verdict (FLAKY, succeeded or
// failed N of N) with the distinct failures, above the answer of the run
// that shows the first failure (else the last run).
func (h *handler) runRepeated(ctx context.Context, c *catalog.Call, in runParams, req capture.Request, check capture.Check, st *store.Store) (catalog.Result[RunOutput], error) {
	times := in.Repeat
	if times == 0 {
		times = untilFailRuns
	}
	if times < 1 || times > pipeline.MaxRepeat {
		return catalog.Result[RunOutput]{}, fault.Usagef("repeat: from 1 to %d runs, not %d", pipeline.MaxRepeat, times)
	}
	var deadline time.Time
	if req.Spec.Timeout > 0 {
		deadline = time.Now().Add(req.Spec.Timeout)
	}
	name := filepath.Base(in.Program)
	tally := testreport.NewTally(times)
	var runs []ranOnce
	var stopped string // why the last run was not counted
	for i := 1; i <= times && ctx.Err() == nil; i++ {
		if !deadline.IsZero() {
			if req.Spec.Timeout = time.Until(deadline); req.Spec.Timeout <= 0 {
				break
			}
		}
		if in.Stdin != "" {
			req.Spec.Stdin = strings.NewReader(in.Stdin) // the last run read the last one
		}
		ran, err := h.runOnce(ctx, c, in, req, check, st, fmt.Sprintf("%s (run %d of %d)", name, i, times))
		if err != nil {
			if i == 1 {
				return ran.answer, err
			}
			break
		}
		runs = append(runs, ran)
		if r := ran.outcome.Result; r.Cancelled || r.TimedOut && !deadline.IsZero() && !time.Now().Before(deadline) {
			stopped = ran.outcome.Verdict.Line
			break
		}
		occ := runOccurrences(name, ran.outcome)
		tally.Add(ran.output.ID, occ)
		if in.UntilFail && len(occ) > 0 {
			break
		}
	}
	if len(runs) == 0 {
		return catalog.Result[RunOutput]{}, ctx.Err()
	}
	return renderRunRepeat(runs, tally.Result(), stopped), nil
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
