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

// testsRun notes the first line that says tests run, and after it keeps
// the last lines: a log that shows tests without a closing count line
// after them that says they passed is no success unless a recognised
// runner's summary vouches for it (pipeline's fail-safe). Which line says
// so is decided when the summary is read (passLine), among the last
// lines: a runner's tally closes its run, and reading every line of a
// test log for one would cost more than the rest of the filter.
func (f *Filter) testsRun(line []byte) {
	if f.sum.TestsRun == nil {
		if alarm.TestsRun(line) {
			f.sum.TestsRun = f.record(line, "tests run")
		}
		return
	}
	if len(line) == 0 || len(line) > maxPassLine {
		return
	}
	c := &f.passes[f.passN%len(f.passes)]
	c.line, c.text = f.sum.Lines, append(c.text[:0], line...)
	f.passN++
}

// maxPassLine is the longest line kept as a candidate: a tally is short.
const maxPassLine = 256

// passCandidate is one of the last lines after TestsRun.
type passCandidate struct {
	line int64
	text []byte
}

// passLine is the newest of the last lines that is a pass summary
// (alarm.PassSummary), or nil.
func (f *Filter) passLine() *Alarm {
	for i := 1; i <= min(f.passN, len(f.passes)); i++ {
		c := f.passes[(f.passN-i)%len(f.passes)]
		if alarm.PassSummary(c.text) {
			return &Alarm{Line: c.line, Text: textclip.String(string(c.text), maxAlarmText), Word: "passed"}
		}
	}
	return nil
}

// record is line as the summary keeps it, bounded.
func (f *Filter) record(line []byte, word string) *Alarm {
	return &Alarm{Line: f.sum.Lines, Text: textclip.String(string(line[:min(len(line), maxAlarmText+4)]), maxAlarmText), Word: word}
}
