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

// filesDir is where the files kept with output id live (a run's coverage
// report): files/ID beside the bodies, removed with the output when it is
// pruned. For an in-memory store it is inside the temporary body directory.
func (s *Store) filesDir(id string) string {
	if s.tmp != nil {
		return filepath.Join(s.bodies, "files", id)
	}
	return filepath.Join(filepath.Dir(s.bodies), "files", id)
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

// ReserveFile makes room for a file PutFile will keep with the output (its
// directory and a temporary file), now and off the caller's path: making
// a directory and a file costs nearly a millisecond on some disks, which
// a producer's run hides. It is called before the producer ends; a room
// not used is removed when the output ends. A failure is left for
// PutFile, which then makes the room itself.
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

// tempFile is a new temporary file among those kept with output id.
func (s *Store) tempFile(id, name string) (*os.File, error) {
	dir := s.filesDir(id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("keeping %s with %s: %w", name, id, err)
	}
	f, err := os.CreateTemp(dir, name+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("keeping %s with %s: %w", name, id, err)
	}
	return f, nil
}

// fillFile writes f, a temporary file of tempFile's, with w and renames
// it to name.
func (s *Store) fillFile(id, name string, f *os.File, w func(io.Writer) error) error {
	dir := s.filesDir(id)
	err := w(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, name))
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
	f, err := os.Open(filepath.Join(s.filesDir(id), name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fault.NotFoundf("output %s has no %s kept with it", id, name)
	}
	return f, err
}
