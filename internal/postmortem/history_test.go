package postmortem

import (
	"fmt"
	"strings"
	"testing"
)

// The history keeps the newest HistoryMax commands, each cut to a size,
// and tells of each.
func TestHistoryIsBounded(t *testing.T) {
	told := 0
	s := &Session{onChange: func() { told++ }}
	for i := range HistoryMax + 50 {
		s.Record(Command{Command: fmt.Sprint("bt ", i), Engine: EngineGDB})
	}
	s.Record(Command{Command: strings.Repeat("x", 10*historyText), Engine: EngineGDB, Error: strings.Repeat("e", 10*historyText)})
	h := s.History()
	if len(h) != HistoryMax || h[0].Command != "bt 51" || told != HistoryMax+51 {
		t.Errorf("history of %d, oldest %q, %d told", len(h), h[0].Command, told)
	}
	if last := h[len(h)-1]; len(last.Command) > historyText+4 || len(last.Error) > historyText+4 || !strings.HasSuffix(last.Command, "…") {
		t.Errorf("a long command kept %d bytes, its error %d", len(last.Command), len(last.Error))
	}
}
