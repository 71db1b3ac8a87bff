package coverage

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// maxXccovLine bounds a line number read from xccov's archive.
const maxXccovLine = 10_000_000

// xccovLine is one line of xccov's archive as JSON: a line that is not
// code has no count. Its subranges (the parts of a line that ran a
// different number of times) are left out: the line's own count is the
// one xccov's report counts a line covered by.
type xccovLine struct {
	Line           int    `json:"line"`
	IsExecutable   bool   `json:"isExecutable"`
	ExecutionCount *int64 `json:"executionCount"`
}

// readXccovArchive reads `xccov view --archive --json` (of a bundle, or
// with --file of some of its files): each file's executable lines and
// their counts, by absolute path.
func readXccovArchive(data []byte) (map[string]*fileCounts, error) {
	var x map[string][]xccovLine
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, fmt.Errorf("reading xccov's archive: %w", err)
	}
	if x == nil {
		return nil, errors.New("reading xccov's archive: not an object of files")
	}
	if len(x) > maxJSONFiles {
		return nil, fmt.Errorf("reading xccov's archive: more than %d files", maxJSONFiles)
	}
	files := make(map[string]*fileCounts, len(x))
	for path, lines := range x {
		if !filepath.IsAbs(path) {
			return nil, fmt.Errorf("reading xccov's archive: file %q is not an absolute path", path)
		}
		counts := &fileCounts{}
		for _, l := range lines {
			if l.Line <= 0 || l.Line > maxXccovLine {
				return nil, fmt.Errorf("reading xccov's archive: %s: bad line number %d", path, l.Line)
			}
			if !l.IsExecutable {
				continue
			}
			if l.ExecutionCount == nil || *l.ExecutionCount < 0 {
				return nil, fmt.Errorf("reading xccov's archive: %s:%d: an executable line without a count", path, l.Line)
			}
			counts.add(l.Line, *l.ExecutionCount)
		}
		files[filepath.Clean(path)] = counts
	}
	return files, nil
}

// ReadXccovArchive reads a result bundle's whole archive (`xccov view
// --archive --json BUNDLE`, whose size the caller bounds) into a report
// of dir's files with their lines, as the other toolchains' reports are.
func ReadXccovArchive(data []byte, dir string) (*Report, error) {
	files, err := readXccovArchive(data)
	if err != nil {
		return nil, err
	}
	lc := newLineCounts()
	lc.lines = files
	return lc.report(ToolXccov, newClassifier(dir, nil)), nil
}

// AddXccovLines puts into r, read from xccov's report, the lines of the
// files of an archive (`xccov view --archive --file F --json BUNDLE`):
// their covered and uncovered ranges, and their figures, which are the
// report's own counted from the lines. It returns the files given lines.
// A file whose report figures differ from its lines' is noted: the lines
// are what the answer shows.
func (r *Report) AddXccovLines(data []byte) (int, error) {
	files, err := readXccovArchive(data)
	if err != nil {
		return 0, err
	}
	c := newClassifier(r.ProjectDir, nil)
	for _, path := range slices.Sorted(maps.Keys(files)) {
		f := fileOf(files[path])
		f.Path, f.Kind = c.classify(path)
		i := slices.IndexFunc(r.Files, func(old File) bool { return old.Path == f.Path })
		if i < 0 {
			r.Files = append(r.Files, f)
			continue
		}
		if old := r.Files[i]; old.Lines != f.Lines || old.Covered != f.Covered {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: xccov's report counts %d of %d lines, its archive's lines %d of %d; the lines are shown",
				f.Path, old.Covered, old.Lines, f.Covered, f.Lines))
		}
		f.Funcs = r.Files[i].Funcs
		r.Files[i] = f
	}
	slices.SortFunc(r.Files, byPath)
	r.count()
	r.noteLinesLacking()
	return len(files), nil
}

// noteLinesLacking says, in place of xccovNote, how many files still lack
// their lines, or drops it when none does.
func (r *Report) noteLinesLacking() {
	lacking := 0
	for i := range r.Files {
		if f := &r.Files[i]; f.Lines > 0 && len(f.Uncovered) == 0 && len(f.CoveredRanges) == 0 {
			lacking++
		}
	}
	r.Notes = slices.DeleteFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, xccovNote) })
	if lacking > 0 {
		r.Notes = append([]string{fmt.Sprintf("%s for the %d files whose lines were not read from its archive", xccovNote, lacking)}, r.Notes...)
	}
}
