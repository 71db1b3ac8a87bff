package store

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/identity"
)

// A file kept with an output is read back by its identity only, an
// unknown name is not found, a name with a path in it is refused, and
// pruning the output removes the file.
func TestFilesKeptWithAnOutput(t *testing.T) {
	s := open(t, ":memory:", Options{MaxAge: time.Hour})
	alice := identity.With(context.Background(), identity.Caller{ID: "token:a"})
	bob := identity.With(context.Background(), identity.Caller{ID: "token:b"})
	id, err := s.Put(alice, Meta{Tool: "test"}, "log\n", Final{})
	if err != nil {
		t.Fatal(err)
	}
	put := func(text string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, text); return err }
	}
	if err := s.PutFile(alice, id, "coverage.jsonl", put("first")); err != nil {
		t.Fatal(err)
	}
	if err := s.PutFile(alice, id, "coverage.jsonl", put("second")); err != nil {
		t.Fatal(err)
	}
	f, err := s.OpenFile(alice, id, "coverage.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(f)
	f.Close()
	if string(data) != "second" {
		t.Errorf("read %q, want the file replaced", data)
	}
	if _, err := s.OpenFile(bob, id, "coverage.jsonl"); !errors.Is(err, ErrNotFound) {
		t.Errorf("another identity read it: %v", err)
	}
	if err := s.PutFile(bob, id, "x", put("")); !errors.Is(err, ErrNotFound) {
		t.Errorf("another identity wrote one: %v", err)
	}
	if _, err := s.OpenFile(alice, id, "other"); fault.KindOf(err) != fault.KindNotFound {
		t.Errorf("a file never kept: %v", err)
	}
	if err := s.PutFile(alice, id, "../escape", put("")); err == nil {
		t.Error("a name with a path was kept")
	}
	if n, _ := s.Prune(context.Background(), time.Now().Add(2*time.Hour)); n != 1 {
		t.Fatalf("pruned %d", n)
	}
	if _, err := os.Stat(s.filesDir(id)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the kept files outlived their output: %v", err)
	}
}

// A writer keeps a file with its own output, before the output is
// finished; the output's identity reads it back, a bad name is refused.
func TestWriterKeepsAFile(t *testing.T) {
	s := open(t, ":memory:", Options{MaxAge: time.Hour})
	alice := identity.With(context.Background(), identity.Caller{ID: "token:a"})
	w, err := s.Create(alice, Meta{Tool: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.PutFile("coverage.jsonl", func(f io.Writer) error { _, err := io.WriteString(f, "kept"); return err }); err != nil {
		t.Fatal(err)
	}
	if err := w.PutFile("../escape", func(io.Writer) error { return nil }); err == nil {
		t.Error("a name with a path was kept")
	}
	if err := w.Finish(context.Background(), Final{Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	f, err := s.OpenFile(alice, w.ID(), "coverage.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if data, _ := io.ReadAll(f); string(data) != "kept" {
		t.Errorf("read %q", data)
	}
}
