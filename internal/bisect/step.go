package bisect

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/triage-dev/triage/internal/argpath"
	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/textclip"
	"github.com/triage-dev/triage/internal/toolchain"
)

// stepper judges the range's revisions one step at a time in the
// worktree, and keeps each step's report.
type stepper struct {
	req   Request
	wt    *worktree
	revs  []Rev
	steps []StepReport
	// failure is the bad revision's failure: what is sought unless Any.
	failure *Failure
	notes   []string
	// said counts the progress messages of the step under way.
	said int
}

// stepAnswer is what a step's stored output keeps as its answer.
type stepAnswer struct {
	Bisect   string `json:"bisect"`
	Revision string `json:"revision"`
	Subject  string `json:"subject"`
	Verdict  string `json:"verdict"`
	Status   string `json:"status"`
}

// sought is the failure judged bad; nil when any is.
func (s *stepper) sought() *Failure {
	if s.req.Any {
		return nil
	}
	return s.failure
}

// judge checks revision p.Index out in the worktree, runs the step, and
// judges its verdict.
func (s *stepper) judge(ctx context.Context, p Probe) (Mark, error) {
	rev := s.revs[p.Index]
	s.progress(p, short(rev.Hash)+" "+s.req.What+"…", false)
	start := time.Now()
	sr := StepReport{Step: p.Step, Revision: short(rev.Hash), Subject: rev.Subject}
	err := s.wt.checkout(ctx, rev.Hash)
	var o outcome
	if err == nil {
		o, err = s.run(ctx, p, rev, &sr)
	}
	switch {
	case ctx.Err() != nil:
		return Skip, ctx.Err() // cancelled: the step's verdict is no judgement
	case err != nil:
		return Skip, err
	}
	sought := s.sought()
	if p.Step == 1 {
		sought = nil // the bad end: any failure is the one sought
		s.failure = o.failure
	}
	mark, why := o.mark(sought)
	if p.Index == 0 && mark == Skip {
		s.notes = append(s.notes, fmt.Sprintf("the good revision %s could not be judged (%s): taken as good", sr.Revision, why))
	}
	sr.Mark, sr.Why, sr.Failure, sr.DurationMS = mark.String(), why, o.failure, time.Since(start).Milliseconds()
	s.steps = append(s.steps, sr)
	s.progress(p, sr.Revision+" "+sr.Mark, true)
	return mark, nil
}

// progress tells the request's Progress of step p, as done when end.
// Progress must rise with every message (MCP's rule): the n-th message
// of step k is at k-1/(n+2), below k, which its end reaches.
func (s *stepper) progress(p Probe, msg string, end bool) {
	if s.req.Progress == nil {
		return
	}
	done := float64(p.Step)
	if !end {
		s.said++
		done -= 1 / float64(s.said+1)
	} else {
		s.said = 0
	}
	s.req.Progress(done, p.Estimate, fmt.Sprintf("step %d of ~%d: %s", p.Step, p.Estimate, msg))
}

// run runs the step at rev, filling sr's verdict and outputs.
func (s *stepper) run(ctx context.Context, p Probe, rev Rev, sr *StepReport) (outcome, error) {
	res, id, err := s.buildOrTest(ctx, p, rev)
	if err != nil {
		sr.Verdict = textclip.String(err.Error(), 300)
		return outcome{skip: "it could not be built or tested here"}, s.fatal(err, p)
	}
	sr.OutputID, sr.Verdict = id, res.Line
	switch s.req.What {
	case WhatTest:
		return testOutcome(res), nil
	case WhatBuild:
		return buildOutcome(res), nil
	}
	if res.Status != pipeline.Succeeded {
		if res.Status == pipeline.Interrupted {
			return outcome{skip: "the build was interrupted"}, nil
		}
		return outcome{skip: "the build failed"}, nil
	}
	sr.BuildID = id
	return s.runProgram(ctx, p, rev, sr)
}

// fatal is err when it ends the bisect: anything but a step that could
// not be planned or started (no project at that revision), which is that
// revision's skip, unless it is the bad end's (then no revision would do).
func (s *stepper) fatal(err error, p Probe) error {
	if fault.KindOf(err) == fault.KindUsage && p.Step > 1 {
		return nil
	}
	return err
}

// buildOrTest makes the step's build or test call in the worktree, as
// the build and test tools make it.
func (s *stepper) buildOrTest(ctx context.Context, p Probe, rev Rev) (*pipeline.Result, string, error) {
	c := s.req.Call
	c.ProjectDir = s.wt.projectDir()
	c.Kind = toolchain.StepTest
	if s.req.What != WhatTest {
		c.Kind = toolchain.StepBuild
	}
	c.Progress = func(_ int64, msg string) { s.progress(p, short(rev.Hash)+": "+msg, false) }
	var res *pipeline.Result
	c.Answer = func(d *pipeline.Called) any {
		res = d.Result
		return s.answer(p, rev, res.Line, string(res.Status))
	}
	cr, err := pipeline.BuildOrTest(ctx, c)
	if err != nil {
		return nil, "", err
	}
	return res, cr.ID, nil
}

// answer is a step's stored answer.
func (s *stepper) answer(p Probe, rev Rev, line, status string) stepAnswer {
	return stepAnswer{Bisect: fmt.Sprintf("step %d of ~%d", p.Step, p.Estimate), Revision: rev.Hash, Subject: rev.Subject,
		Verdict: line, Status: status}
}

// runProgram runs the program the build made, as the run tool runs one
// in the foreground; a program the build did not make skips the step.
func (s *stepper) runProgram(ctx context.Context, p Probe, rev Rev, sr *StepReport) (outcome, error) {
	dir, spec := s.wt.projectDir(), s.req.Run
	prog, err := argpath.Find(spec.Program, "", dir)
	if err != nil {
		sr.Verdict = textclip.String(err.Error(), 200)
		return outcome{skip: "the build made no program " + spec.Program}, nil
	}
	req := capture.Request{Spec: spawn.Spec{Argv: append([]string{prog}, spec.Args...), Dir: dir, Env: spec.Env,
		Timeout: spec.Timeout, CoreDumps: true}, Program: prog, ProjectDir: dir, Stall: spec.Stall}
	name := filepath.Base(prog)
	var o *capture.Outcome
	cr, err := capture.RunStored(ctx, capture.StoredRun{Tool: s.req.Call.Tool, Store: s.req.Call.Store, Budget: s.req.Call.Budget,
		Request: req, Memcheck: capture.Memcheck{Off: true},
		Progress: func(pr capture.Progress) string {
			msg := fmt.Sprintf("running %s: %s", name, textclip.Count(pr.Lines, "line"))
			s.progress(p, short(rev.Hash)+": "+msg, false)
			return msg
		},
		Answer: func(out *capture.Outcome, _ capture.Result) any {
			o = out
			return s.answer(p, rev, out.Verdict.Line, string(out.Verdict.Status))
		}})
	if err != nil {
		sr.Verdict = textclip.String(err.Error(), 300)
		return outcome{skip: "the program could not start"}, s.fatal(err, p)
	}
	sr.OutputID, sr.Verdict = cr.ID, o.Verdict.Line
	return runOutcome(o, dir), nil
}
