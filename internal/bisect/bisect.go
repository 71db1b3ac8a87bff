package bisect

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/pipeline"
)

// What each step runs.
const (
	WhatTest  = "test"  // the project's tests (Call is the test call)
	WhatBuild = "build" // the build alone (Call is the build call)
	WhatRun   = "run"   // a build (Call), then a program (Run)
)

// Defaults of the limits.
const (
	DefaultMaxSteps  = 30
	DefaultTimeLimit = time.Hour
)

// Request is one bisect.
type Request struct {
	// ProjectDir is the project's directory (absolute), in a git work
	// tree; its place in the repository is the project's in the worktree.
	ProjectDir string
	// Good and Bad are the revisions the range runs between; Bad ""
	// is HEAD.
	Good, Bad string
	// What is WhatTest, WhatBuild or WhatRun.
	What string
	// Call is the test or build call each step makes, as the test and
	// build tools make it (its Store, Tool, Budget, plan and limits); its
	// ProjectDir, Progress and Answer are each step's.
	Call pipeline.Call
	// Run is the program WhatRun runs after the build.
	Run RunSpec
	// Any: every failure is bad. Otherwise only the bad revision's own
	// failure is (its kind and a site in common); another is skipped.
	Any bool
	// MaxSteps and TimeLimit bound the search (0: the defaults); no step
	// starts after TimeLimit.
	MaxSteps  int
	TimeLimit time.Duration
	// Progress, when set, is told of each step as it starts and ends
	// ("step 4 of ~7: a1b2c3d4e5 good"), and of the step's own progress:
	// the steps done, rising with every message (step k's messages fall
	// between k-1 and k, its end is k), and the steps estimated.
	Progress func(done float64, estimate int, msg string)
}

// RunSpec is the program a run step runs in the worktree.
type RunSpec struct {
	// Program is a path relative to the project (or a name on PATH).
	Program string
	Args    []string
	Env     map[string]string
	// Timeout bounds the run; Stall ends it as hung after that long
	// without progress (0: off).
	Timeout, Stall time.Duration
}

// Report is where a bisect ended.
type Report struct {
	// Line is the verdict line.
	Line string `json:"verdict"`
	// Status: found, among (the first bad commit is one of Candidates),
	// stopped (a limit ended the search first), not_bad (the bad revision
	// shows no failure), good_is_bad (the good revision shows it too).
	Status string `json:"status"`
	// First is the first bad commit, when found.
	First *Commit `json:"first_bad,omitempty"`
	// Candidates are the revisions the first bad one is among when it is
	// not found (skipped ones, or a limit reached), oldest first.
	Candidates []Rev `json:"candidates,omitempty"`
	// Before and At are the steps of the newest good revision and the
	// oldest bad one.
	Before *StepReport `json:"before,omitempty"`
	At     *StepReport `json:"at,omitempty"`
	// Sought is the failure judged bad: the bad revision's; nil when any
	// failure is.
	Sought *Failure `json:"sought,omitempty"`
	// Steps are the revisions judged, in order.
	Steps []StepReport `json:"steps"`
	// Revisions counts the range's, both ends included.
	Revisions int      `json:"revisions"`
	Notes     []string `json:"notes,omitempty"`
}

// StepReport is one revision judged.
type StepReport struct {
	Step     int    `json:"step"`
	Revision string `json:"revision"`
	Subject  string `json:"subject"`
	Mark     string `json:"mark" jsonschema:"good, bad or skip"`
	Verdict  string `json:"verdict"`
	// Why says why a revision was skipped.
	Why     string   `json:"why,omitempty"`
	Failure *Failure `json:"failure,omitempty"`
	// OutputID is the step's stored output (the run's, for a run);
	// BuildID the build's, when it is another.
	OutputID   string `json:"output_id,omitempty"`
	BuildID    string `json:"build_id,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

// Run bisects: the range from Good to Bad in a worktree of its own under
// triage's scratch directory, removed at the end (after an error or a
// cancellation too). The error is a usage error for revisions or a
// directory that cannot be bisected, else the store's, git's or the
// context's; the ends that do not differ are a report (not_bad,
// good_is_bad), with their steps.
func Run(ctx context.Context, req Request) (*Report, error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	r, err := openRepo(ctx, req.ProjectDir)
	if err != nil {
		return nil, err
	}
	revs, err := r.rangeOf(ctx, req.Good, req.Bad)
	if err != nil {
		return nil, err
	}
	wt, err := r.addWorktree(ctx, revs[len(revs)-1].Hash)
	if err != nil {
		return nil, err
	}
	defer wt.remove()
	s := &stepper{req: req, wt: wt, revs: revs}
	res, err := Search(ctx, len(revs), s.judge, req.limits(time.Now()))
	switch {
	case errors.Is(err, ErrBadNotBad), errors.Is(err, ErrGoodIsBad):
		return s.ends(err), nil
	case err != nil:
		return nil, err
	}
	return s.report(ctx, r, res), nil
}

// check refuses a request that cannot run.
func (req Request) check() error {
	switch req.What {
	case WhatTest, WhatBuild:
	case WhatRun:
		if req.Run.Program == "" {
			return fault.Usagef("program is required to bisect a run: the path, relative to the project, of the program its build makes")
		}
	default:
		return fault.Usagef("what %q: use test, build or run", req.What)
	}
	if req.Good == "" {
		return fault.Usagef("good is required: a revision (commit, tag, branch) where the failure is not there")
	}
	return nil
}

// rangeOf resolves good and bad ("" is HEAD) and lists the range.
func (r repo) rangeOf(ctx context.Context, good, bad string) ([]Rev, error) {
	if bad == "" {
		bad = "HEAD"
	}
	b, err := r.commit(ctx, "bad", bad)
	if err != nil {
		return nil, err
	}
	g, err := r.commit(ctx, "good", good)
	if err != nil {
		return nil, err
	}
	return r.revisions(ctx, g, b)
}

// limits are the request's, defaults filled in, from now.
func (req Request) limits(now time.Time) Limits {
	l := Limits{Steps: req.MaxSteps, Deadline: now.Add(req.TimeLimit)}
	if l.Steps <= 0 {
		l.Steps = DefaultMaxSteps
	}
	if req.TimeLimit <= 0 {
		l.Deadline = now.Add(DefaultTimeLimit)
	}
	return l
}

// ends is the report of ends that do not differ.
func (s *stepper) ends(err error) *Report {
	rep := s.base()
	last := &rep.Steps[len(rep.Steps)-1]
	rep.At = last
	if errors.Is(err, ErrBadNotBad) {
		rep.Status = "not_bad"
		why := last.Verdict
		if last.Why != "" {
			why = last.Why + ": " + why
		}
		rep.Line = fmt.Sprintf("NOT BISECTED: the bad revision %s does not fail (%s); give a bad revision that does", last.Revision, why)
		return rep
	}
	rep.Status = "good_is_bad"
	rep.Line = fmt.Sprintf("NOT BISECTED: the good revision %s fails too (%s); give an older good revision", last.Revision, last.Verdict)
	return rep
}

// base is the report's part every ending shares.
func (s *stepper) base() *Report {
	return &Report{Steps: s.steps, Revisions: len(s.revs), Sought: s.sought(), Notes: s.notes}
}
