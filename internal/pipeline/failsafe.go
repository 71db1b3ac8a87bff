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
func (r *Result) failSafe() {
	a := r.Log.Alarm
	if r.Status != Succeeded || a == nil {
		return
	}
	switch {
	case r.Report != nil && !r.guessed:
		return // a recognised runner's summary said the run passed
	case r.Kind == KindBuild && len(r.Steps) > 0:
		return
	}
	r.alarmVerdict()
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
