package store

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
	if got := readKept(t, s, alice, id, "coverage.jsonl"); got != "second" {
		t.Errorf("read %q, want the file replaced", got)
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
	if left := keptNames(t, s, id); len(left) > 0 {
		t.Errorf("the kept files outlived their output: %v", left)
	}
}

// readKept reads the file name kept with output id.
func readKept(t *testing.T, s *Store, ctx context.Context, id, name string) string {
	t.Helper()
	f, err := s.OpenFile(ctx, id, name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, _ := io.ReadAll(f)
	return string(data)
}

// keptNames lists what the files directory holds of output id's.
func keptNames(t *testing.T, s *Store, id string) []string {
	t.Helper()
	entries, err := os.ReadDir(s.filesRoot())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), id) {
			names = append(names, e.Name())
		}
	}
	return names
}

// A file an earlier version kept in a directory of the output's own
// (files/ID/NAME) is still read, and removed with the output.
func TestFilesKeptInTheEarlierLayout(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:", Options{MaxAge: time.Hour})
	id, err := s.Put(ctx, Meta{Tool: "test"}, "log\n", Final{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(s.filesRoot(), id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "coverage.jsonl"), []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := readKept(t, s, ctx, id, "coverage.jsonl"); got != "old" {
		t.Errorf("read %q", got)
	}
	if n, _ := s.Prune(ctx, time.Now().Add(2*time.Hour)); n != 1 {
		t.Fatalf("pruned %d", n)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the earlier layout's directory outlived its output: %v", err)
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

// A file reserved while the output is written is kept where the room was
// made, and nothing of the room is left: a second PutFile of the name
// still replaces it, a room never used is removed with the output's end,
// and a room that could not be made leaves PutFile to say why.
func TestReservedFiles(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:", Options{MaxAge: time.Hour})
	put := func(text string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, text); return err }
	}
	read := func(id, name string) string { t.Helper(); return readKept(t, s, ctx, id, name) }
	w, err := s.Create(ctx, Meta{Tool: "test"})
	if err != nil {
		t.Fatal(err)
	}
	w.ReserveFile("coverage.jsonl")
	w.ReserveFile("unused")
	w.ReserveFile("../escape") // refused by PutFile as ever; nothing made
	if err := w.PutFile("coverage.jsonl", put("first")); err != nil {
		t.Fatal(err)
	}
	if got := read(w.ID(), "coverage.jsonl"); got != "first" {
		t.Errorf("read %q", got)
	}
	if err := w.PutFile("coverage.jsonl", put("second")); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(ctx, Final{Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	if got := read(w.ID(), "coverage.jsonl"); got != "second" {
		t.Errorf("read %q, want the file replaced", got)
	}
	if kept := keptNames(t, s, w.ID()); len(kept) != 1 || kept[0] != w.ID()+".coverage.jsonl" {
		t.Errorf("kept beside the output: %v; want its coverage.jsonl alone", kept)
	}

	// The kept files' directory cannot be made: the reservation fails
	// quietly and PutFile reports it.
	w, err = s.Create(ctx, Meta{Tool: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(s.filesRoot()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.filesRoot(), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	w.ReserveFile("coverage.jsonl")
	if err := w.PutFile("coverage.jsonl", put("x")); err == nil || !strings.Contains(err.Error(), "keeping coverage.jsonl with "+w.ID()) {
		t.Errorf("PutFile where no room could be made: %v", err)
	}
	w.Abort()
}

// Closing an in-memory store removes its directory whole, even with files
// its writers were still making in the background (a body, a reserved
// kept file) when it closed.
func TestCloseWaitsForFilesBeingMade(t *testing.T) {
	ctx := context.Background()
	for range 20 {
		s, err := Open(ctx, ":memory:", Options{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := s.Create(ctx, Meta{Tool: "test"})
		if err != nil {
			t.Fatal(err)
		}
		w.ReserveFile("coverage.jsonl")
		dir := s.bodies
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("the store's directory outlived it: %v", err)
		}
	}
}
