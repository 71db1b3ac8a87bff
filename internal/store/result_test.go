package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/identity"
)

// TestResultKeptWithTheVerdict: the structured result given to Finish is
// kept with the output, shown to its identity alone, bounded, and absent
// for an output finished without one.
func TestResultKeptWithTheVerdict(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:", Options{})
	res := json.RawMessage(`{"verdict":{"line":"CRASHED (SIGSEGV)"},"core":"/c/core.1"}`)
	id, err := s.Put(ctx, Meta{Tool: "run"}, "x\n", Final{Status: "crash", VerdictLine: "CRASHED (SIGSEGV)", Result: res})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Result(ctx, id); err != nil || string(got) != string(res) {
		t.Fatalf("Result = %s, %v; want %s", got, err, res)
	}
	bob := identity.With(ctx, identity.Caller{ID: "token:b"})
	if _, err := s.Result(bob, id); !errors.Is(err, ErrNotFound) {
		t.Errorf("another identity's result: %v, want not found", err)
	}
	plain, _ := s.Put(ctx, Meta{Tool: "run"}, "y\n", Final{Status: "success"})
	if got, err := s.Result(ctx, plain); err != nil || got != nil {
		t.Errorf("an output finished without a result: %s, %v; want none", got, err)
	}
	big := json.RawMessage(`{"s":"` + strings.Repeat("a", MaxResultBytes) + `"}`)
	over, _ := s.Put(ctx, Meta{Tool: "run"}, "z\n", Final{Status: "success", Result: big})
	if got, _ := s.Result(ctx, over); len(got) > 200 || !strings.Contains(string(got), "over the store's bound of 65536") {
		t.Errorf("a result over the bound is kept as %.200s", got)
	}
	bad, _ := s.Put(ctx, Meta{Tool: "run"}, "z\n", Final{Status: "success", Result: json.RawMessage(`{"a":`)})
	if got, _ := s.Result(ctx, bad); !json.Valid(got) {
		t.Errorf("a result that is not JSON is kept as %s", got)
	}
}

// TestResultKeptAfterTheLog: a result is kept in the body file after the
// log, out of the row; the log reads back as it was written, a search
// does not see the result, and the entry counts the log's bytes alone. A
// result the body cannot take (the disk full) is kept in the row.
func TestResultKeptAfterTheLog(t *testing.T) {
	ctx := context.Background()
	log := "first line\nsecond line\n"
	res := json.RawMessage(`{"tests":[` + strings.Repeat(`{"name":"TestMarker","status":"passed"},`, 300) + `{}]}`)
	for _, c := range []struct {
		name   string
		opts   Options
		inBody bool
	}{
		{"after the log", Options{}, true},
		{"the disk full", Options{diskLimit: int64(len(log)) + 100}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := open(t, filepath.Join(t.TempDir(), "t.db"), c.opts)
			id, err := s.Put(ctx, Meta{Tool: "test"}, log, Final{Status: "success", Result: res})
			if err != nil {
				t.Fatal(err)
			}
			if got, err := s.Result(ctx, id); err != nil || string(got) != string(res) {
				t.Fatalf("Result = %.100s, %v; want the result given", got, err)
			}
			var inRow sql.NullString
			var length sql.NullInt64
			if err := s.db.QueryRow(`SELECT result, result_len FROM outputs WHERE id=?`, id).Scan(&inRow, &length); err != nil {
				t.Fatal(err)
			}
			if c.inBody != length.Valid || c.inBody == inRow.Valid {
				t.Errorf("kept in the body: %v (length %v), in the row: %v; want in the body %v", length.Valid, length.Int64, inRow.Valid, c.inBody)
			}
			e, err := s.Info(ctx, id)
			if err != nil || e.Bytes != int64(len(log)) || e.Lines != 2 || !e.Complete {
				t.Errorf("entry %+v, %v; want the log's %d bytes and 2 lines, complete", e, err, len(log))
			}
			if p, err := s.Page(ctx, id, 0, 10); err != nil || strings.Join(p.Lines, "\n")+"\n" != log || p.More {
				t.Errorf("the log reads back as %q (more %v), %v; want %q", p.Lines, p.More, err, log)
			}
			if r, err := s.Search(ctx, Query{ID: id, Pattern: "TestMarker"}); err != nil || len(r.Matches) != 0 {
				t.Errorf("a search of the log found the result: %+v, %v", r.Matches, err)
			}
		})
	}
}

// TestResultOutOfBounds: a row whose result's place is past the bound
// the store keeps (a damaged database) is refused, not read.
func TestResultOutOfBounds(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "t.db"), Options{})
	id, err := s.Put(ctx, Meta{Tool: "test"}, "x\n", Final{Status: "success", Result: json.RawMessage(`{"ok":true}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`UPDATE outputs SET result_len=? WHERE id=?`, int64(1)<<40, id); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Result(ctx, id); err == nil || !strings.Contains(err.Error(), "out of bounds") {
		t.Errorf("Result = %.100s, %v; want an error saying the place is out of bounds", r, err)
	}
}

// TestProgressWhileRunning: a running output shows its latest progress
// line (cut to its bound), which is announced and changes Version; its end
// clears it.
func TestProgressWhileRunning(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:", Options{})
	w, err := s.Create(ctx, Meta{Tool: "test"})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := s.Version(ctx)
	ch := s.Changed()
	if err := w.Progress(ctx, "step 2/2 test: 3 passed, 1 failed so far"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
	default:
		t.Error("a progress line was not announced on Changed")
	}
	if after, _ := s.Version(ctx); after == before {
		t.Errorf("Version %q did not change with a progress line", after)
	}
	if e, _ := s.Info(ctx, w.ID()); e.Progress != "step 2/2 test: 3 passed, 1 failed so far" {
		t.Errorf("progress = %q", e.Progress)
	}
	w.Progress(ctx, strings.Repeat("é", MaxProgressBytes))
	if e, _ := s.Info(ctx, w.ID()); len(e.Progress) > MaxProgressBytes || !strings.HasPrefix(e.Progress, "é") {
		t.Errorf("a long progress line is kept as %d bytes", len(e.Progress))
	}
	w.Finish(ctx, Final{Status: "success"})
	if e, _ := s.Info(ctx, w.ID()); e.Progress != "" {
		t.Errorf("a finished output still shows progress %q", e.Progress)
	}
}

// TestCloseCountsTheLastLine: Close commits an unterminated last line, so
// Lines is the whole output's before Finish; later writes fail.
func TestCloseCountsTheLastLine(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:", Options{})
	w, _ := s.Create(ctx, Meta{Tool: "run"})
	w.Write([]byte("one\ntwo"))
	if err := w.Close(); err != nil || w.Lines() != 2 {
		t.Fatalf("after Close: %d lines, %v; want 2", w.Lines(), err)
	}
	if _, err := w.Write([]byte("three\n")); err == nil {
		t.Error("a write after Close was taken")
	}
	if err := w.Finish(ctx, Final{Status: "success"}); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.Page(ctx, w.ID(), 0, 10); strings.Join(p.Lines, "|") != "one|two" {
		t.Errorf("stored lines %q", p.Lines)
	}
}

// TestMigrateResult: a database made before results and progress were
// kept opens, its outputs have none, and new outputs keep theirs.
func TestMigrateResult(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	s := open(t, path, Options{})
	old, _ := s.Put(ctx, Meta{Tool: "run"}, "a\n", Final{Status: "success", VerdictLine: "SUCCEEDED"})
	for _, col := range []string{"result", "progress", "progressed", "result_at", "result_len"} {
		if _, err := s.db.Exec(`ALTER TABLE outputs DROP COLUMN ` + col); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s = open(t, path, Options{})
	if e, err := s.Info(ctx, old); err != nil || e.VerdictLine != "SUCCEEDED" || e.Progress != "" {
		t.Fatalf("old output: %+v %v", e, err)
	}
	if r, err := s.Result(ctx, old); err != nil || r != nil {
		t.Errorf("old output's result: %s %v; want none", r, err)
	}
	id, err := s.Put(ctx, Meta{Tool: "run"}, "b\n", Final{Status: "success", Result: json.RawMessage(`{"ok":true}`)})
	if err != nil {
		t.Fatalf("insert after migration: %v", err)
	}
	if r, _ := s.Result(ctx, id); string(r) != `{"ok":true}` {
		t.Errorf("new output's result after migration: %s", r)
	}
}
