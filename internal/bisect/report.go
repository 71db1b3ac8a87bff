package bisect

import (
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/textclip"
)

// report is the report of a search that ran: the first bad commit found,
// or the candidates it is among.
func (s *stepper) report(ctx context.Context, r repo, res Result) *Report {
	rep := s.base()
	rep.Before, rep.At = s.stepOf(res.Lo), s.stepOf(res.Hi)
	skipped := s.count("skip")
	tally := fmt.Sprintf("%s, %d skipped", textclip.Count(len(rep.Steps), "step"), skipped)
	if res.Found() {
		c := r.describe(ctx, s.revs[res.Hi].Hash)
		rep.Status, rep.First = "found", &c
		rep.Line = fmt.Sprintf("FIRST BAD COMMIT: %s %s%s — %s", short(c.Hash), textclip.String(c.Subject, 80), s.failed(rep.At), tally)
		return rep
	}
	for _, i := range res.Candidates() {
		rep.Candidates = append(rep.Candidates, s.revs[i])
	}
	names := make([]string, 0, len(rep.Candidates))
	for _, c := range rep.Candidates[:min(len(rep.Candidates), 5)] {
		names = append(names, short(c.Hash))
	}
	if len(rep.Candidates) > 5 {
		names = append(names, "…")
	}
	if res.Stopped != "" {
		rep.Status = "stopped"
		rep.Line = fmt.Sprintf("BISECT STOPPED (%s): the first bad commit is one of %d: %s — %s", res.Stopped, len(rep.Candidates), strings.Join(names, " "), tally)
		return rep
	}
	rep.Status = "among"
	rep.Line = fmt.Sprintf("FIRST BAD COMMIT is one of %d (the others could not be judged): %s — %s", len(rep.Candidates), strings.Join(names, " "), tally)
	return rep
}

// failed is " (the failure)" of a bad step, "" when it has none.
func (s *stepper) failed(sr *StepReport) string {
	if sr == nil || sr.Failure == nil {
		return ""
	}
	return " (" + textclip.String(sr.Failure.String(), 120) + ")"
}

// stepOf is the step that judged revision i, nil when none did.
func (s *stepper) stepOf(i int) *StepReport {
	want := short(s.revs[i].Hash)
	for k := range s.steps {
		if s.steps[k].Revision == want {
			sr := s.steps[k]
			return &sr
		}
	}
	return nil
}

// count counts the steps of a mark.
func (s *stepper) count(mark string) int {
	n := 0
	for _, sr := range s.steps {
		if sr.Mark == mark {
			n++
		}
	}
	return n
}
