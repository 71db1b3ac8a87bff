package store

import (
	"context"
	"errors"
	"time"

	"modernc.org/sqlite"
)

// busyPatience bounds how long a write keeps trying while other
// connections write. SQLite's busy timeout waits for the write lock, but
// not for every conflict: a write that finds its snapshot stale
// (SQLITE_BUSY_SNAPSHOT) fails at once, and a long run of other writers
// (a 1 GiB output commits thousands of chunks) can outlast one timeout.
// Giving up loses a run's record, so a write tries again instead.
const busyPatience = 30 * time.Second

// isBusy reports SQLite's SQLITE_BUSY in any of its extended forms.
func isBusy(err error) bool {
	var e *sqlite.Error
	const sqliteBusy = 5
	return errors.As(err, &e) && e.Code()&0xff == sqliteBusy
}

// retryBusy runs write until it does not fail busy, ctx ends or
// busyPatience has passed, and returns its last error.
func retryBusy(ctx context.Context, write func() error) error {
	deadline := time.Now().Add(busyPatience)
	pause := 5 * time.Millisecond
	for {
		err := write()
		if !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
		pause = min(2*pause, 250*time.Millisecond)
	}
}

// exec is ExecContext that waits out other writers (retryBusy).
func (s *Store) exec(ctx context.Context, query string, args ...any) error {
	return retryBusy(ctx, func() error {
		_, err := s.db.ExecContext(ctx, query, args...)
		return err
	})
}
