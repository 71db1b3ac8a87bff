package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/triage-dev/triage/internal/fault"
)

// filesRoot is where the files kept with outputs live (a run's coverage
// report), each as ID.NAME (keptPath): files/ beside the bodies, inside the
// temporary body directory for an in-memory store. One directory for all,
// not one per output: making a directory costs up to a millisecond of CPU
// on some disks (ext4 in a VM), a Go coverage run's most costly syscall.
func (s *Store) filesRoot() string {
	if s.tmp != nil {
		return filepath.Join(s.bodies, "files")
	}
	return filepath.Join(filepath.Dir(s.bodies), "files")
}

// keptPath is where the file name kept with output id lives. An id has no
// dot, so the name cannot make one id's file another's.
func (s *Store) keptPath(id, name string) string {
	return filepath.Join(s.filesRoot(), id+"."+name)
}

// legacyFilesDir is where stores of earlier versions kept output id's
// files, files/ID/NAME: read when keptPath has none, removed with the
// output.
func (s *Store) legacyFilesDir(id string) string { return filepath.Join(s.filesRoot(), id) }

// removeKept removes the files kept with the outputs in gone, the
// temporary files of a PutFile that never ended among them, in either
// layout: one read of the directory however many outputs went.
func (s *Store) removeKept(gone map[string]bool) {
	if len(gone) == 0 {
		return
	}
	entries, _ := os.ReadDir(s.filesRoot())
	for _, e := range entries {
		id, _, _ := strings.Cut(e.Name(), ".") // ID.NAME, or an earlier version's ID/
		if gone[id] {
			os.RemoveAll(filepath.Join(s.filesRoot(), e.Name()))
		}
	}
}

// checkFileName refuses a name that is not one plain file name.
func checkFileName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		return fmt.Errorf("kept file name %q: want a plain file name", name)
	}
	return nil
}

// PutFile keeps a file with output id, replacing one of that name, written
// from w into a temporary file then renamed, so a reader never sees half
// of it. The output must be the caller's (see Info).
func (s *Store) PutFile(ctx context.Context, id, name string, w func(io.Writer) error) error {
	if err := checkFileName(name); err != nil {
		return err
	}
	if _, err := s.Info(ctx, id); err != nil {
		return err
	}
	return s.putFile(id, name, w)
}

// PutFile keeps a file with the writer's own output, as Store.PutFile
// does; the writer made the output, so it is not looked up. A file named
// to ReserveFile before is written where the reservation made room.
func (w *Writer) PutFile(name string, write func(io.Writer) error) error {
	if err := checkFileName(name); err != nil {
		return err
	}
	if r := w.reserved[name]; r != nil {
		if f := r.take(); f != nil {
			return w.s.fillFile(w.id, name, f, write)
		}
	}
	return w.s.putFile(w.id, name, write)
}

// ReserveFile makes room for a file PutFile will keep with the output (a
// temporary file), now and off the caller's path: making a file costs
// about half a millisecond on some disks, which a producer's run hides.
// It is called before the producer ends; a room not used is removed when
// the output ends. A failure is left for PutFile, which then makes the
// room itself.
func (w *Writer) ReserveFile(name string) {
	if checkFileName(name) != nil || w.reserved[name] != nil {
		return
	}
	if w.reserved == nil {
		w.reserved = map[string]*reservation{}
	}
	r := &reservation{made: make(chan struct{})}
	w.reserved[name] = r
	w.s.making.Add(1)
	go func() {
		defer w.s.making.Done()
		defer close(r.made)
		r.f, _ = w.s.tempFile(w.id, name)
	}()
}

// reservation is a room ReserveFile makes: a temporary file, nil when it
// could not be made.
type reservation struct {
	made  chan struct{}
	f     *os.File
	taken atomic.Bool
}

// take is the reserved file once made, nil if it was not or is taken.
func (r *reservation) take() *os.File {
	<-r.made
	if r.taken.Swap(true) {
		return nil
	}
	return r.f
}

// dropReserved removes the rooms PutFile did not use.
func (w *Writer) dropReserved() {
	for _, r := range w.reserved {
		if f := r.take(); f != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}
}

func (s *Store) putFile(id, name string, w func(io.Writer) error) error {
	f, err := s.tempFile(id, name)
	if err != nil {
		return err
	}
	return s.fillFile(id, name, f, w)
}

// tempFile is a new temporary file among those kept with output id; the
// directory is made the first time only.
func (s *Store) tempFile(id, name string) (*os.File, error) {
	pattern := id + "." + name + ".tmp*"
	f, err := os.CreateTemp(s.filesRoot(), pattern)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(s.filesRoot(), privateDir); err == nil {
			f, err = os.CreateTemp(s.filesRoot(), pattern)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("keeping %s with %s: %w", name, id, err)
	}
	return f, nil
}

// fillFile writes f, a temporary file of tempFile's, with w and renames
// it to name.
func (s *Store) fillFile(id, name string, f *os.File, w func(io.Writer) error) error {
	err := w(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), s.keptPath(id, name))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("keeping %s with %s: %w", name, id, err)
	}
	return nil
}

// OpenFile opens a file kept with output id, if the caller in ctx may see
// the output. A file never kept is not found, naming the output.
func (s *Store) OpenFile(ctx context.Context, id, name string) (*os.File, error) {
	if err := checkFileName(name); err != nil {
		return nil, err
	}
	if _, err := s.Info(ctx, id); err != nil {
		return nil, err
	}
	f, err := os.Open(s.keptPath(id, name))
	if errors.Is(err, fs.ErrNotExist) {
		f, err = os.Open(filepath.Join(s.legacyFilesDir(id), name))
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fault.NotFoundf("output %s has no %s kept with it", id, name)
	}
	return f, err
}
