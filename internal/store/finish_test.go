package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// holdWriteLock takes the database's write lock from a connection of its
// own, as another process writing would: FinishBeside's row waits for it
// (the busy timeout) until release.
func holdWriteLock(t *testing.T, path string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return func() {
		conn.ExecContext(context.Background(), "COMMIT")
		conn.Close()
	}
}

// An output whose row FinishBeside is still writing is never seen running
// by a reader here: Info and Result wait for the row, however long it
// takes (here until another connection lets go of the write lock).
func TestReadersWaitForTheRowFinishBesideWrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	s := open(t, path, Options{})
	w, err := s.Create(ctx, Meta{Tool: "test"})
	if err != nil {
		t.Fatal(err)
	}
	numbered(t, w, 0, 10)
	if err := w.Close(); err != nil { // the bytes committed: the row is left
		t.Fatal(err)
	}
	release := holdWriteLock(t, path)
	waiting := make(chan struct{})
	s.ending.waiting = sync.OnceFunc(func() { close(waiting) })
	go func() {
		<-waiting // Info waits for the row: only now may it be written
		release()
	}()
	if err := w.FinishBeside(ctx, Final{Status: "ok", VerdictLine: "TESTS PASSED", Result: json.RawMessage(`{"a":1}`)}); err != nil {
		t.Fatal(err)
	}
	e, err := s.Info(ctx, w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if e.Status != "ok" || !e.Complete || e.Lines != 10 {
		t.Errorf("read as %s, complete %v, %d lines; want ok, complete, 10", e.Status, e.Complete, e.Lines)
	}
	if r, err := s.Result(ctx, w.ID()); err != nil || string(r) != `{"a":1}` {
		t.Errorf("result %s, %v", r, err)
	}
}

// A row FinishBeside could not write leaves the output incomplete to its
// readers here, saying why, rather than running for good.
func TestARowFinishBesideCouldNotWrite(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "s.db"), Options{})
	if _, err := s.db.ExecContext(ctx, `CREATE TRIGGER refuse_end BEFORE UPDATE OF status ON outputs BEGIN SELECT RAISE(FAIL, 'injected failure'); END`); err != nil {
		t.Fatal(err)
	}
	w, err := s.Create(ctx, Meta{Tool: "test"})
	if err != nil {
		t.Fatal(err)
	}
	numbered(t, w, 0, 3)
	if err := w.FinishBeside(ctx, Final{Status: "ok"}); err != nil {
		t.Fatalf("the bytes were stored: %v", err)
	}
	e, err := s.Info(ctx, w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if e.Status != "incomplete" || e.Complete || !strings.Contains(e.Progress, "injected failure") {
		t.Errorf("read as %s (complete %v, %q); want incomplete, saying why", e.Status, e.Complete, e.Progress)
	}
	entries, err := s.List(ctx, 5)
	if err != nil || len(entries) != 1 || entries[0].Status != "incomplete" {
		t.Errorf("listed as %+v, %v", entries, err)
	}
}
