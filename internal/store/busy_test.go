package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"modernc.org/sqlite"
)

// staleWrite writes through conn from a snapshot taken before another
// connection's write (made by between): SQLite refuses it at once with
// SQLITE_BUSY_SNAPSHOT, which its busy timeout does not wait out.
func staleWrite(ctx context.Context, t *testing.T, s *Store, between func()) error {
	t.Helper()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN DEFERRED`); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, `ROLLBACK`)
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM outputs`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	between()
	if _, err := conn.ExecContext(ctx, `INSERT INTO cache (key, output_id, created) VALUES ('k', 'o', 0)`); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, `COMMIT`)
	return err
}

func TestBusySnapshotIsBusy(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "triage.db"), Options{})
	err := staleWrite(ctx, t, s, func() {
		if _, err := s.Create(ctx, Meta{Tool: "run"}); err != nil {
			t.Fatal(err)
		}
	})
	var e *sqlite.Error
	if !errors.As(err, &e) || e.Code() != 517 {
		t.Fatalf("a write from a stale snapshot: %v, want SQLITE_BUSY_SNAPSHOT (517)", err)
	}
	if !isBusy(err) {
		t.Errorf("isBusy(%v) = false", err)
	}
	if isBusy(errors.New("database is locked")) || isBusy(nil) {
		t.Error("isBusy took an error that is not SQLite's for busy")
	}
}

// A write that another connection's commit made stale is tried again,
// from a fresh snapshot, and succeeds: a run's record is never lost to a
// busy moment.
func TestRetryBusyWaitsOutOtherWriters(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "triage.db"), Options{})
	tries := 0
	err := retryBusy(ctx, func() error {
		tries++
		return staleWrite(ctx, t, s, func() {
			if tries == 1 {
				if _, err := s.Create(ctx, Meta{Tool: "run"}); err != nil {
					t.Fatal(err)
				}
			}
		})
	})
	if err != nil || tries != 2 {
		t.Fatalf("retryBusy: %v after %d tries, want success on the second", err, tries)
	}
	var id string
	if err := s.db.QueryRowContext(ctx, `SELECT output_id FROM cache WHERE key='k'`).Scan(&id); err != nil || id != "o" {
		t.Errorf("the retried write's row: %q %v", id, err)
	}
	// Anything else is not tried again.
	tries = 0
	want := errors.New("no such table")
	if err := retryBusy(ctx, func() error { tries++; return want }); err != want || tries != 1 {
		t.Errorf("retryBusy of another error: %v after %d tries", err, tries)
	}
}
