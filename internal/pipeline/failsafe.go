package pipeline

import (
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/alarm"
)

// failSafe: a run that no recognised runner's summary vouches for is never
// a success while its log holds a word of the alarm table (a crash, a kill,
// a timeout or a failure in any runner's words): "CRASHED: line 12 of the
// log says …". A build whose steps all exited 0 is vouched for by them:
// its output is the compilers', read as such.
//
// Nor is a log that shows tests running, in any runner's words, without a
// closing count line after them that says they passed: "FAILED: line 3
// of the log shows tests running ("collected 3 items"), and no summary
// that they passed came after it".
func (r *Result) failSafe() {
	if r.Status != Succeeded {
		return
	}
	switch {
	case r.Report != nil && !r.guessed:
		return // a recognised runner's summary said the run passed
	case r.Kind == KindBuild && len(r.Steps) > 0:
		return
	case r.Log.Alarm != nil:
		r.alarmVerdict()
	case r.Log.TestsRun == nil:
	case r.Log.PassLine == nil:
		r.Status = Failed
		r.Line = fmt.Sprintf("FAILED: line %d of the log shows tests running (%q), and no summary that they passed came after it: the run may have ended halfway",
			r.Log.TestsRun.Line, clip(strings.TrimSpace(r.Log.TestsRun.Text), 160))
	default:
		r.Line = fmt.Sprintf("TESTS PASSED by the log's own summary: line %d says %q (a runner triage does not read test by test)",
			r.Log.PassLine.Line, clip(strings.Trim(r.Log.PassLine.Text, " \t=-*"), 160))
	}
}

// alarmVerdict concludes from the log's most severe alarm line.
func (r *Result) alarmVerdict() {
	a := r.Log.Alarm
	r.Status = Failed
	what := "FAILED"
	switch a.Class {
	case alarm.Crash:
		r.Status, what = Crashed, "CRASHED"
	case alarm.Timeout:
		what = "TIMED OUT (the runner's own limit)"
	}
	r.Line = fmt.Sprintf("%s: line %d of the log says %q (%s), and no test runner's summary that the run passed was recognised",
		what, a.Line, clip(strings.TrimSpace(a.Text), 160), a.Word)
	if r.Log.Alarms > 1 {
		r.Line += fmt.Sprintf("; %d such lines", r.Log.Alarms)
	}
}
