package xcode

import (
	"fmt"

	"github.com/triage-dev/triage/internal/testreport"
)

// FailedTest is one failed, errored or crashed test, or a runner's error.
type FailedTest struct {
	Name, Status string
	Where        string // file:line, or ""
	Message      string
}

// Failures are the failed tests: the result bundle's (authoritative
// messages) when there is one, then crashed or errored cases from the log,
// which the bundle may not know, and the runner's errors.
func (o *BuildOutcome) Failures() []FailedTest {
	var fs []FailedTest
	seen := map[string]bool{}
	if s := o.Summary; s != nil {
		for _, f := range s.Failures {
			fs = append(fs, FailedTest{Name: f.TestName, Status: "failed", Where: f.Location, Message: f.Text})
			seen[f.TestName] = true
		}
	}
	rep := o.Run.Report
	if rep == nil {
		return fs
	}
	for _, c := range rep.Failures() {
		if !seen[c.Name] && (o.Summary == nil || c.Status != testreport.Failed) {
			fs = append(fs, logFailure(c))
		}
	}
	for _, e := range rep.RunnerErrors {
		fs = append(fs, FailedTest{Name: "test runner", Status: "error", Message: e})
	}
	return fs
}

func logFailure(c testreport.Case) FailedTest {
	f := FailedTest{Name: c.Name, Status: string(c.Status), Message: c.Message}
	if c.File != "" {
		f.Where = fmt.Sprintf("%s:%d", c.File, c.Line)
	}
	if c.Suite != "" {
		f.Name = c.Suite + "." + c.Name
	}
	return f
}
