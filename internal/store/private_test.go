package store

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wantMode fails unless path (not followed) has permissions want.
func wantMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Error(err)
		return
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s: mode %04o, want %04o", path, got, want)
	}
}

// putWithFile stores an output with a body and a kept file.
func putWithFile(t *testing.T, s *Store) string {
	t.Helper()
	ctx := context.Background()
	id, err := s.Put(ctx, Meta{Tool: "run", Argv: []string{"env"}}, "SECRET=hunter2\n", Final{Status: "success"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutFile(ctx, id, "coverage.jsonl", func(w io.Writer) error {
		_, err := io.WriteString(w, "{}\n")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return id
}

// Everything a new store writes is its user's alone, whatever the umask
// lets through: outputs hold secrets that tests print.
func TestNewStoreIsPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "triage")
	db := filepath.Join(dir, "triage.db")
	s := open(t, db, Options{})
	id := putWithFile(t, s)
	for _, d := range []string{dir, s.bodies, filepath.Dir(s.CoreDir(id)), s.filesRoot(), ownersDir(db)} {
		wantMode(t, d, 0o700)
	}
	files := []string{db, db + "-wal", db + "-shm", s.bodyPath(id), s.keptPath(id, "coverage.jsonl")}
	owners, _ := filepath.Glob(filepath.Join(ownersDir(db), "*"))
	for _, f := range append(files, owners...) {
		wantMode(t, f, 0o600)
	}
	if got := s.Tightened(); got != nil {
		t.Errorf("a new store tightened %q", got)
	}
}

// A store an earlier version made with wide modes is made private when
// opened, its bodies and kept files included, and Tightened says so; a
// symbolic link in it is not followed.
func TestOpenTightensAWideStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "triage")
	db := filepath.Join(dir, "triage.db")
	s := open(t, db, Options{})
	id := putWithFile(t, s)
	body, kept := s.bodyPath(id), s.keptPath(id, "coverage.jsonl")
	s.Close()
	outside := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(outside, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "bodies", "link.log")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "bodies"), filepath.Join(dir, "files"), filepath.Join(dir, "cores")} {
		chmod(t, p, 0o755)
	}
	for _, p := range []string{db, body, kept} {
		chmod(t, p, 0o644)
	}

	s = open(t, db, Options{})
	for _, d := range []string{dir, s.bodies, s.filesRoot(), filepath.Dir(s.CoreDir(id))} {
		wantMode(t, d, 0o700)
	}
	for _, f := range []string{db, body, kept} {
		wantMode(t, f, 0o600)
	}
	wantMode(t, outside, 0o644)
	said := strings.Join(s.Tightened(), "\n")
	if !strings.Contains(said, db+" (was 0644)") || !strings.Contains(said, "entries under "+s.bodies) {
		t.Errorf("Tightened does not name the database and the bodies:\n%s", said)
	}
	if p, err := s.Page(context.Background(), id, 0, 10); err != nil || len(p.Lines) != 1 || p.Lines[0] != "SECRET=hunter2" {
		t.Errorf("after tightening: %+v, %v", p, err)
	}
}

// A store kept in a directory shared with other files (store.path in a
// project) leaves that directory's mode alone; its own entries are private.
func TestStoreInASharedDirectory(t *testing.T) {
	dir := t.TempDir()
	chmod(t, dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "README"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "outputs.db")
	s := open(t, db, Options{})
	id := putWithFile(t, s)
	wantMode(t, dir, 0o755)
	wantMode(t, s.bodies, 0o700)
	wantMode(t, db, 0o600)
	wantMode(t, s.bodyPath(id), 0o600)
}

func chmod(t *testing.T, path string, mode fs.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}
