package postmortem

import (
	"slices"
	"time"

	"github.com/triage-dev/triage/internal/textclip"
)

// HistoryMax is how many commands a session's history keeps: the newest.
// Each keeps at most historyText bytes of its command and error.
const (
	HistoryMax  = 200
	historyText = 1024
)

// Command is one command run on a session, as its history keeps it.
type Command struct {
	Command string    `json:"command"`
	Engine  Engine    `json:"engine"`
	At      time.Time `json:"at"`
	// Cached: the output was served from the store, not run again.
	Cached bool `json:"cached"`
	// OutputID is the stored output (none when the command did not
	// complete).
	OutputID string `json:"output_id,omitempty"`
	// Error is the engine's error message, or why the command did not
	// complete.
	Error string `json:"error,omitempty"`
}

// Record adds c to the session's history (dropping the oldest beyond
// HistoryMax) and tells the Manager's Options.OnChange.
func (s *Session) Record(c Command) {
	c.Command, c.Error = textclip.String(c.Command, historyText), textclip.String(c.Error, historyText)
	s.mu.Lock()
	if len(s.history) == HistoryMax {
		s.history = slices.Delete(s.history, 0, 1)
	}
	s.history = append(s.history, c)
	changed := s.onChange
	s.mu.Unlock()
	if changed != nil {
		changed()
	}
}

// History returns the commands run on the session, oldest first.
func (s *Session) History() []Command {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.history)
}
