package store

import (
	"context"
	"os"
	"sync"
	"syscall"
	"time"
)

// stranded are the outputs whose end could not be recorded: on a full
// disk the body write fails and then, often, so does SQLite's update of
// the row, which would leave the run listed "running" for as long as this
// Store is open (another Store recovers it only once this one is gone).
// Reads show them as incomplete, and each later Create (space may have
// come back) and Close tries to record it again.
type stranded struct {
	mu  sync.Mutex
	ids map[string]time.Time // when it ended; guarded by mu
}

// strand remembers that output id ended at t without its row saying so.
func (s *Store) strand(id string, t time.Time) {
	s.stranded.mu.Lock()
	defer s.stranded.mu.Unlock()
	if s.stranded.ids == nil {
		s.stranded.ids = map[string]time.Time{}
	}
	s.stranded.ids[id] = t
}

// showStranded makes e, read from its row, say how it ended when that
// could not be recorded.
func (s *Store) showStranded(e *Entry) {
	if e.Status != "running" {
		return
	}
	s.stranded.mu.Lock()
	defer s.stranded.mu.Unlock()
	if t, ok := s.stranded.ids[e.ID]; ok {
		e.Status, e.Complete, e.Finished, e.Progress = "incomplete", false, t, ""
	}
}

// recordStranded records the end of the stranded outputs, keeping those
// it still cannot.
func (s *Store) recordStranded(ctx context.Context) {
	s.stranded.mu.Lock()
	defer s.stranded.mu.Unlock()
	for id, t := range s.stranded.ids {
		if s.endRow(ctx, id, t) == nil {
			delete(s.stranded.ids, id)
		}
	}
}

// endRow marks a running output's row incomplete, ended at t.
func (s *Store) endRow(ctx context.Context, id string, t time.Time) error {
	if s.diskFull.Load() {
		return errDiskFull
	}
	return s.exec(ctx, `UPDATE outputs SET status='incomplete', finished=?, complete=0, progress='' WHERE id=? AND status='running'`, t.UnixNano(), id)
}

// errDiskFull is what a write to the database fails with while a test's
// disk limit (Options.diskLimit) is reached: SQLite's own writes fail on a
// full disk too.
var errDiskFull = &os.PathError{Op: "write", Path: "triage.db", Err: syscall.ENOSPC}
