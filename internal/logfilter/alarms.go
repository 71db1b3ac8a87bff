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
	f.sum.Alarm = &Alarm{Line: f.sum.Lines, Text: textclip.String(string(line[:min(len(line), maxAlarmText+4)]), maxAlarmText), Word: h.Word, Class: h.Class}
}
