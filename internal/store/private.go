package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Privacy. Outputs hold what programs printed (secrets in test logs
// included), their argv and their cwd, so everything the store writes is
// its user's alone: directories 0700 and files 0600, whatever the umask. A
// store an earlier version made with wider modes is tightened when opened,
// and Tightened says what was. Only what this user owns is changed (chmod
// of another's file fails anyway), and symbolic links are never followed:
// chmod through one could tighten a file outside the store.

const (
	privateDir  = 0o700
	privateFile = 0o600
)

// storeDirs are the directories beside the database that the store makes:
// its bodies, the cores kept with runs, its owner locks and the files kept
// with outputs (made on first use, see tempFile).
var storeDirs = []string{"bodies", "cores", "owners", "files"}

// makePrivate prepares a store on disk at dbPath: its directory and
// subdirectories exist and are private, and so is the database file,
// created empty here so that SQLite's WAL and shared-memory files, which
// take the database's mode, are private from the start. It returns what it
// tightened.
func makePrivate(dbPath string) ([]string, error) {
	dir := filepath.Dir(dbPath)
	var t tightener
	if err := os.MkdirAll(dir, privateDir); err != nil {
		return nil, fmt.Errorf("creating store directory: %w", err)
	}
	if onlyStore(dir, filepath.Base(dbPath)) {
		// A directory shared with other files (a project's, named by
		// store.path) is left as it is: the store's own entries in it
		// are private, which is what keeps them unread.
		t.fix(dir, privateDir)
	}
	for _, sub := range storeDirs {
		p := filepath.Join(dir, sub)
		if sub != "files" {
			if err := os.MkdirAll(p, privateDir); err != nil {
				return nil, fmt.Errorf("creating store directory %s: %w", p, err)
			}
		}
		if t.fix(p, privateDir) {
			// Made by an earlier version: what it holds was made with
			// its modes too. Once tight, later opens skip the walk.
			t.tree(p)
		}
	}
	f, err := os.OpenFile(dbPath, os.O_CREATE|os.O_EXCL|os.O_WRONLY, privateFile)
	if err == nil {
		f.Close()
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("creating store %s: %w", dbPath, err)
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		t.fix(dbPath+suffix, privateFile)
	}
	return t.done, nil
}

// onlyStore reports whether dir holds nothing but a store's entries: the
// database named base (and SQLite's files beside it) and storeDirs.
func onlyStore(dir, base string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) && !isStoreDir(name) {
			return false
		}
	}
	return true
}

func isStoreDir(name string) bool {
	for _, d := range storeDirs {
		if name == d {
			return true
		}
	}
	return false
}

// tightener narrows modes, recording each path it changed.
type tightener struct{ done []string }

// fix makes path's mode want when path is a file or directory of this user
// whose mode lets others in, reporting whether it changed it. A path that
// is missing, a symbolic link or another user's is left alone.
func (t *tightener) fix(path string, want fs.FileMode) bool {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink != 0 || fi.Mode().Perm()&0o077 == 0 {
		return false
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Geteuid() {
		return false
	}
	if os.Chmod(path, want) != nil {
		return false
	}
	t.done = append(t.done, fmt.Sprintf("%s (was %04o)", path, fi.Mode().Perm()))
	return true
}

// tree tightens everything under root (directories 0700, files 0600),
// recording how many it changed: a store holds thousands of bodies.
func (t *tightener) tree(root string) {
	var in tightener
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return nil
		}
		switch {
		case d.IsDir():
			in.fix(p, privateDir)
		case d.Type().IsRegular():
			in.fix(p, privateFile)
		}
		return nil
	})
	if n := len(in.done); n > 0 {
		t.done = append(t.done, fmt.Sprintf("%d entries under %s", n, root))
	}
}
