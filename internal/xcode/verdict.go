package xcode

import (
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/textclip"
)

// refine rewrites pipeline's verdict in xcodebuild's terms where its
// generic line says less than the log does: a test case that crashed (the
// runner restarted after it) is named as xcodebuild names tests, and a
// runner that exited unexpectedly is named by its error. A run in which
// xcodebuild itself died by a signal keeps the runner's line, which names
// the signal.
func (o *BuildOutcome) refine() {
	rep := o.Run.Report
	if rep == nil || o.killedBySignal() {
		return
	}
	switch o.Status {
	case pipeline.Crashed:
		if c, ok := firstCrashed(rep); ok {
			o.Line = "CRASHED: " + caseName(c) + " crashed"
			if msg := firstLine(c.Message); msg != "" {
				o.Line += ": " + clip(msg, 160)
			}
			if others := rep.Totals.Failed + rep.Totals.Errored + rep.Totals.Crashed - 1; others > 0 {
				o.Line += fmt.Sprintf(" (and %d more failed, of %d)", others, rep.Totals.Total)
			}
			return
		}
		if e, ok := runnerCrash(rep); ok {
			o.Line = "CRASHED: the test runner exited unexpectedly: " + clip(firstLine(e), 160)
		}
	}
}

func (o *BuildOutcome) killedBySignal() bool {
	for _, s := range o.Run.Steps {
		if s.Ran && s.Outcome.Result.Signaled {
			return true
		}
	}
	return false
}

func firstCrashed(rep *testreport.Report) (testreport.Case, bool) {
	for _, c := range rep.Cases {
		if c.Status == testreport.Crashed {
			return c, true
		}
	}
	return testreport.Case{}, false
}

// runnerCrash finds a runner error that says the runner died.
func runnerCrash(rep *testreport.Report) (string, bool) {
	for _, e := range rep.RunnerErrors {
		l := strings.ToLower(e)
		if strings.Contains(l, "unexpected exit") || strings.Contains(l, "crash") {
			return e, true
		}
	}
	return "", false
}

func caseName(c testreport.Case) string {
	if c.Suite == "" {
		return c.Name
	}
	return c.Suite + "." + c.Name
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string { return textclip.String(s, n) }
