package toolchain

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// Files is where planning reads a project's files: its directory's
// entries, and the few files whose text decides a plan (Makefiles,
// CMakeLists.txt, meson.build, Makefile.am, autotools' bootstrap
// scripts). Paths are absolute and the files' host's own. A nil
// Options.Files is this machine's file system; a project on another host
// is read from a snapshot of it (remote.Snapshot), which answers only for
// the project directory and its entries.
type Files interface {
	Stat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	Open(name string) (io.ReadCloser, error)
}

// PlanFiles are the files in a project directory whose text planning
// reads: what a snapshot of a project on another host must hold.
func PlanFiles() []string {
	return append(append(append([]string{}, makefiles...), "CMakeLists.txt", "meson.build", "Makefile.am"), bootstrapScripts...)
}

// localFiles is this machine's file system.
type localFiles struct{}

func (localFiles) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (localFiles) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
func (localFiles) Open(name string) (io.ReadCloser, error)    { return os.Open(name) }

// files is where o's project is read.
func (o Options) files() Files {
	if o.Files == nil {
		return localFiles{}
	}
	return o.Files
}

// local reports whether fsys is this machine's.
func local(fsys Files) bool {
	switch f := fsys.(type) {
	case localFiles:
		return true
	case *readOnce:
		return local(f.under)
	}
	return false
}

// readOnce reads the files of one plan through under, each once (its first
// maxMakefileScan bytes, all any planner reads), however many of the
// plan's questions read it (a make plan asks of the Makefile seven times:
// its test target, automake, the flag and compiler variables), so that
// planning costs one open and read per file.
type readOnce struct {
	under Files
	read  map[string]readResult
	vars  map[string]map[string]flagValue // by directory: readMakeVars's, parsed once
	clang map[string]string               // by compiler and PATH: findClang's, looked up once
}

// clangPath is findClang's answer for compiler, looked up once a plan.
func (r *readOnce) clangPath(compiler string, o Options) string {
	key := compiler + "\x00" + envOf(o, "PATH")
	if c, ok := r.clang[key]; ok {
		return c
	}
	if r.clang == nil {
		r.clang = map[string]string{}
	}
	c := findClang(compiler, o)
	r.clang[key] = c
	return c
}

// makeVars is readMakeVars of dir, parsed on the first question.
func (r *readOnce) makeVars(dir string) map[string]flagValue {
	if v, ok := r.vars[dir]; ok {
		return v
	}
	if r.vars == nil {
		r.vars = map[string]map[string]flagValue{}
	}
	v := readMakeVars(r, dir)
	r.vars[dir] = v
	return v
}

type readResult struct {
	text []byte
	err  error
}

func newReadOnce(under Files) *readOnce {
	return &readOnce{under: under, read: map[string]readResult{}}
}

func (r *readOnce) Stat(name string) (fs.FileInfo, error)      { return r.under.Stat(name) }
func (r *readOnce) ReadDir(name string) ([]fs.DirEntry, error) { return r.under.ReadDir(name) }

func (r *readOnce) Open(name string) (io.ReadCloser, error) {
	got, ok := r.read[name]
	if !ok {
		got.text, got.err = r.readHead(name)
		r.read[name] = got
	}
	if got.err != nil {
		return nil, got.err
	}
	return io.NopCloser(bytes.NewReader(got.text)), nil
}

// readHead reads the first maxMakefileScan bytes of a file.
func (r *readOnce) readHead(name string) ([]byte, error) {
	f, err := r.under.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxMakefileScan))
}

// absIn makes dir absolute: on this machine from the working directory; a
// directory on another host must be absolute already (its working
// directory is not this process's).
func absIn(fsys Files, dir string) (string, error) {
	if dir == "" {
		return "", errors.New("no project directory given")
	}
	if local(fsys) {
		return filepath.Abs(dir)
	}
	if !path.IsAbs(dir) {
		return "", fmt.Errorf("%s: a directory on another host must be an absolute path", dir)
	}
	return path.Clean(dir), nil
}
