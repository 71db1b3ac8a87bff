package bisect

import (
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/bisect"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// Output is bisect's result.
type Output struct {
	Verdict    string                `json:"verdict"`
	Status     string                `json:"status" jsonschema:"found, among (one of candidates), stopped (a limit), not_bad, good_is_bad"`
	FirstBad   *wire.BisectCommit    `json:"first_bad,omitempty"`
	Candidates []wire.BisectRevision `json:"candidates,omitempty" jsonschema:"when not found: the revisions the first bad is among"`
	Before     *wire.BisectStep      `json:"before,omitempty" jsonschema:"the newest good revision's step"`
	At         *wire.BisectStep      `json:"at,omitempty" jsonschema:"the first bad revision's step"`
	Sought     *wire.BisectFailure   `json:"sought,omitempty" jsonschema:"the failure judged bad: the bad revision's"`
	Steps      []wire.BisectStep     `json:"steps"`
	Revisions  int                   `json:"revisions" jsonschema:"in the range, both ends included"`
	Notes      []string              `json:"notes,omitempty"`
}

// render renders a bisect's report: the verdict, the first bad commit,
// the steps before and at it, every step, and its diff last.
func render(rep *bisect.Report) catalog.Result[Output] {
	out := Output{Verdict: rep.Line, Status: rep.Status, FirstBad: wire.BisectCommitOf(rep.First),
		Candidates: wire.BisectRevisionsOf(rep.Candidates), Before: wire.BisectStepOf(rep.Before), At: wire.BisectStepOf(rep.At),
		Sought: wire.BisectFailureOf(rep.Sought), Steps: wire.BisectStepsOf(rep.Steps), Revisions: rep.Revisions, Notes: rep.Notes}
	var b strings.Builder
	b.WriteString(rep.Line + "\n")
	if c := rep.First; c != nil {
		fmt.Fprintf(&b, "commit %s\nAuthor: %s\nDate:   %s\n    %s\n", c.Hash, c.Author, c.Date, c.Subject)
		for _, f := range c.Files {
			fmt.Fprintf(&b, " %s | %s\n", f.Path, lines(f))
		}
	}
	for _, c := range rep.Candidates {
		fmt.Fprintf(&b, "candidate %s %s\n", c.Hash[:min(len(c.Hash), 10)], c.Subject)
	}
	writeStep(&b, "before: ", rep.Before)
	writeStep(&b, "at:     ", rep.At)
	for _, n := range rep.Notes {
		b.WriteString("note: " + n + "\n")
	}
	fmt.Fprintf(&b, "steps (%d of a range of %d revisions):\n", len(rep.Steps), rep.Revisions)
	for i := range rep.Steps {
		writeStep(&b, "  ", &rep.Steps[i])
	}
	if c := rep.First; c != nil && c.Diff != "" {
		cut := ""
		if c.DiffCut {
			cut = fmt.Sprintf(", cut to %d KB: git show %s for the rest", bisect.MaxDiffBytes>>10, c.Hash[:10])
		}
		fmt.Fprintf(&b, "diff of the project's files%s:\n%s", cut, c.Diff)
	}
	outcome := catalog.OK
	if rep.Status == "not_bad" || rep.Status == "good_is_bad" {
		outcome = catalog.UsageError // the revisions given do not differ: the caller's to change
	}
	return catalog.Result[Output]{Text: b.String(), Output: out, Outcome: outcome}
}

// writeStep writes one step's line: number, revision, mark, why, verdict
// and where its output is.
func writeStep(b *strings.Builder, prefix string, s *bisect.StepReport) {
	if s == nil {
		return
	}
	why := ""
	if s.Why != "" {
		why = " (" + s.Why + ")"
	}
	ids := s.OutputID
	if s.BuildID != "" && s.BuildID != s.OutputID {
		ids = "build " + s.BuildID + ", run " + s.OutputID
	}
	fmt.Fprintf(b, "%sstep %d %s %s%s: %s [%s]\n", prefix, s.Step, s.Revision, s.Mark, why, s.Verdict, ids)
}

// lines is a file's change as git show --stat counts it.
func lines(f bisect.FileChange) string {
	if f.Binary {
		return "binary"
	}
	return fmt.Sprintf("+%d -%d", f.Added, f.Deleted)
}
