package logfilter

import (
	"github.com/triage-dev/triage/internal/alarm"
	"github.com/triage-dev/triage/internal/textclip"
)

// maxAlarmText bounds the text kept of an alarm line.
const maxAlarmText = 300

// alarm records a line holding a word of the alarm table: the first of the
// most severe class is kept.
func (f *Filter) alarm(line []byte, h alarm.Hit) {
	f.sum.Alarms++
	if a := f.sum.Alarm; a != nil && a.Class >= h.Class {
		return
	}
	f.sum.Alarm = f.record(line, h.Word)
	f.sum.Alarm.Class = h.Class
}

// testsRun notes the first line that says tests run, and after it the
// last closing count line that says tests passed: a log that shows tests
// without such a line after them is no success unless a recognised
// runner's summary vouches for it (pipeline's fail-safe). It reports a
// pass summary, which is kept as a summary.
func (f *Filter) testsRun(line []byte) bool {
	if f.sum.TestsRun == nil {
		if alarm.TestsRun(line) {
			f.sum.TestsRun = f.record(line, "tests run")
		}
		return false
	}
	if alarm.PassSummary(line) {
		f.sum.PassLine = f.record(line, "passed")
		return true
	}
	return false
}

// record is line as the summary keeps it, bounded.
func (f *Filter) record(line []byte, word string) *Alarm {
	return &Alarm{Line: f.sum.Lines, Text: textclip.String(string(line[:min(len(line), maxAlarmText+4)]), maxAlarmText), Word: word}
}
