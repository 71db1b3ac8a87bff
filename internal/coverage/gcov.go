package coverage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// maxDataFiles bounds the .gcda files one report reads.
const maxDataFiles = 50000

// skipDirs are not looked into for coverage data: version control, and
// triage's own build directories when the data is the project's (make).
var skipDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, ".triage": true}

// DataFiles lists the .gcda files under dirs (gcc's counters, written as a
// test program exits) and counts the object files that have no .gcno beside
// them (compiled without --coverage).
func DataFiles(dirs []string) (data []string, bare int, err error) {
	w := dataWalk{objects: true, notes: map[string]bool{}}
	if err := w.walk(dirs); err != nil {
		return nil, 0, err
	}
	// The notes are the walk's own entries, not a stat per object file: a
	// file system call costs on a loaded machine, and a tree of object
	// files has as many of them as objects.
	for _, o := range w.objs {
		if !w.notes[strings.TrimSuffix(o, ".o")+".gcno"] {
			bare++
		}
	}
	return w.data, bare, nil
}

// RemoveData removes the .gcda files under dirs: gcc adds a run's counts to
// those it finds, so a run's report would count the runs before it.
func RemoveData(dirs []string) error {
	w := dataWalk{}
	if err := w.walk(dirs); err != nil {
		return err
	}
	for _, f := range w.data {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing the last run's coverage data: %w", err)
		}
	}
	return nil
}

// dataWalk collects gcc's coverage files under directories: the data
// (.gcda) and, when objects is set, the object files and notes (.o, .gcno).
type dataWalk struct {
	objects bool
	data    []string
	objs    []string
	notes   map[string]bool
}

func (w *dataWalk) walk(dirs []string) error {
	for _, root := range dirs {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return nil // an unreadable corner holds nothing we can read
			case d.IsDir():
				if path != root && skipDirs[d.Name()] {
					return filepath.SkipDir
				}
			case strings.HasSuffix(path, ".gcda"):
				if len(w.data) >= maxDataFiles {
					return fmt.Errorf("more than %d .gcda files under %s", maxDataFiles, root)
				}
				w.data = append(w.data, path)
			case !w.objects:
			case strings.HasSuffix(path, ".o"):
				w.objs = append(w.objs, path)
			case strings.HasSuffix(path, ".gcno"):
				w.notes[path] = true
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// gcovBatch is how many data files one gcov reads.
const gcovBatch = 200

// gcovTimeout bounds one gcov.
const gcovTimeout = 5 * time.Minute

// RunGcov reads data files into a report of dir's files; what is under
// generated (the build directory) is generated. The files are read here
// where they can be (readGcovNative), else by gcov (--json-format
// --stdout, gcc 12 and later); the report is the same.
func RunGcov(ctx context.Context, data []string, dir string, generated []string) (*Report, error) {
	lc := newLineCounts()
	switch err := readGcovNative(ctx, data, lc); {
	case err == nil:
		return lc.report(ToolGcov, newClassifier(dir, generated)), nil
	case !errors.Is(err, errGcovNative):
		return nil, err
	}
	lc = newLineCounts() // gcov reads them all again
	for len(data) > 0 {
		n := min(len(data), gcovBatch)
		if err := gcovBatchInto(ctx, lc, data[:n]); err != nil {
			return nil, err
		}
		data = data[n:]
	}
	return lc.report(ToolGcov, newClassifier(dir, generated)), nil
}

func gcovBatchInto(ctx context.Context, lc *lineCounts, data []string) error {
	argv := append([]string{"gcov", "--json-format", "--stdout"}, data...)
	pr, pw := io.Pipe()
	var stderr limited
	parsed := make(chan error, 1)
	go func() {
		parsed <- readGcovJSON(pr, lc)
		io.Copy(io.Discard, pr)
	}()
	res, err := spawn.Run(ctx, spawn.Spec{Argv: argv, Dir: filepath.Dir(data[0]), Stdout: pw, Stderr: &stderr, Timeout: gcovTimeout})
	pw.Close()
	perr := <-parsed
	if err != nil {
		return fmt.Errorf("running gcov: %w", err)
	}
	if !res.Success() {
		return fmt.Errorf("gcov --json-format failed (%s): %s", res, strings.TrimSpace(stderr.String()))
	}
	if perr != nil {
		return fmt.Errorf("reading gcov's JSON (gcov --json-format --stdout needs gcc 12 or later): %w", perr)
	}
	return nil
}
