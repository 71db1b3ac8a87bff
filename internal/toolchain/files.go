package toolchain

import (
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
// CMakeLists.txt). Paths are absolute and the files' host's own. A nil
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
	return append(append([]string{}, makefiles...), "CMakeLists.txt")
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
	_, ok := fsys.(localFiles)
	return ok
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
