// Package scratch makes triage's temporary directories and removes the ones
// whose owner is gone.
//
// A directory made by Dir is named triage-<kind>-<random> in the temporary
// directory and holds an owner file, flock-ed for as long as the directory's
// owner (a store, a debug manager, a dump session) holds it. The kernel drops
// the lock when the process dies, however it dies, so Sweep can tell a
// directory left by a server killed with -9 from one in use by a server
// still running, and remove only the former. The owner file is locked under
// a hidden name and then renamed, so a sweep never sees it unlocked.
package scratch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Prefix starts the name of every directory Dir makes.
const Prefix = "triage-"

// ownerFile is the locked file in every directory Dir makes.
const ownerFile = ".owner"

// Owned is a temporary directory held by its owner until Remove.
type Owned struct {
	Path string
	lock *os.File
}

// Dir makes a temporary directory triage-<kind>-<random> under root (the
// temporary directory when root is "") and takes its owner lock.
func Dir(root, kind string) (*Owned, error) {
	if root == "" {
		root = os.TempDir()
	}
	path, err := os.MkdirTemp(root, Prefix+kind+"-")
	if err != nil {
		return nil, err
	}
	hidden := filepath.Join(path, ownerFile+".new")
	f, err := os.OpenFile(hidden, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
	if err == nil {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			err = os.Rename(hidden, filepath.Join(path, ownerFile))
		}
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		os.RemoveAll(path)
		return nil, fmt.Errorf("locking temporary directory %s: %w", path, err)
	}
	return &Owned{Path: path, lock: f}, nil
}

// Remove deletes the directory, then releases its lock. Safe to call more
// than once.
func (o *Owned) Remove() error {
	if o == nil || o.lock == nil {
		return nil
	}
	err := os.RemoveAll(o.Path)
	o.lock.Close()
	o.lock = nil
	return err
}

// Sweep removes the directories Dir made under root (the temporary
// directory when root is "") whose owner is gone, and returns their paths.
// A directory without an owner file (one being made, or not made by Dir) is
// left alone.
func Sweep(root string) ([]string, error) {
	if root == "" {
		root = os.TempDir()
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("sweeping %s: %w", root, err)
	}
	var removed []string
	var errs []error
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), Prefix) {
			continue
		}
		path := filepath.Join(root, e.Name())
		if !abandoned(path) {
			continue
		}
		if err := os.RemoveAll(path); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, path)
	}
	return removed, errors.Join(errs...)
}

// abandoned reports whether path's owner file exists and nobody holds its
// lock. The lock taken to find out is released when the file is closed.
func abandoned(path string) bool {
	f, err := os.OpenFile(filepath.Join(path, ownerFile), os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}
