package pipeline

import (
	"fmt"
	"time"

	"github.com/triage-dev/triage/internal/hang"
	"github.com/triage-dev/triage/internal/testreport"
)

// withStuck names where a timed-out step was stuck, from the stacks the
// capture took before the kill (internal/hang), picked again now that the
// running test's name is known:
//
//	TIMED OUT after 10s in TestWaitsForever, blocked in chan receive at hang_test.go:7
//	TIMED OUT after 10s in the build step: in gen.main, blocked in read at gen.go:12
//	TIMED OUT after 10s in the test step while running x: deadlocked: ...
func (r *Result) withStuck(f *StepResult, line string) string {
	rep := f.Outcome.Hang
	if rep == nil {
		return line
	}
	stuck := rep.Analyze(runningTest(r.Report))
	if len(stuck) == 1 && stuck[0].Test != "" && r.Report != nil {
		r.Report.NameCutShort("", stuck[0].Test, "it was still running when the run was killed")
	}
	r.Hang = rep.Trimmed()
	phrase := hang.Phrase(stuck)
	switch {
	case phrase == "" && len(rep.Notes) > 0:
		return line + "; stacks not taken: " + rep.Notes[0]
	case phrase == "":
		return line
	case len(stuck) == 1 && stuck[0].Test != "":
		return fmt.Sprintf("TIMED OUT after %s %s", f.Outcome.Result.Duration.Round(time.Second), phrase)
	}
	return line + ": " + phrase
}

// runningTest is the bare name of the test the report saw start and not
// finish ("TestWaitsForever", "tests::spins"), or "".
func runningTest(rep *testreport.Report) string {
	if rep == nil {
		return ""
	}
	name := ""
	for _, c := range rep.Failures() {
		if c.Status == testreport.Errored || c.Status == testreport.Crashed {
			name = c.Name
		}
	}
	return name
}
