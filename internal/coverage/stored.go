package coverage

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// FileName is the name a run's report is kept under beside its output.
const FileName = "coverage.jsonl"

// header is a stored report's first line.
type header struct {
	Report
	FileCount int `json:"file_count"`
}

// Write writes the report as JSON lines: the report (totals, notes), then
// one line per file in path order, so that a question about one file reads
// one line's JSON, found by a binary search (FindFile), whatever the size
// of the report.
func (r *Report) Write(w io.Writer) error {
	h, err := json.Marshal(header{Report: *r, FileCount: len(r.Files)})
	if err != nil {
		return err
	}
	const flushAt = 64 << 10
	buf := append(append(make([]byte, 0, flushAt+4<<10), h...), '\n')
	files := r.Files
	if !slices.IsSortedFunc(files, byPath) {
		files = slices.SortedFunc(slices.Values(files), byPath)
	}
	for i := range files {
		buf = appendFileLine(buf, &files[i])
		if len(buf) >= flushAt {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err = w.Write(buf)
	return err
}

func byPath(a, b File) int { return cmp.Compare(a.Path, b.Path) }

// maxStoredLine bounds one line of a stored report (one file's ranges).
const maxStoredLine = 16 << 20

func scanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxStoredLine)
	return sc
}

func readHeader(sc *bufio.Scanner) (*Report, error) {
	if !sc.Scan() {
		return nil, fmt.Errorf("the stored coverage report is empty: %v", sc.Err())
	}
	var h header
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
		return nil, fmt.Errorf("the stored coverage report: %w", err)
	}
	return &h.Report, nil
}

// Summary is a report's totals and the files a filter selects, least
// covered first, without their ranges.
type Summary struct {
	Report  *Report // Files holds the files shown
	Filter  string  // a path prefix; "" or "." is every file
	Matched int     // own files the filter selected, shown or not
	// MaxFuncs bounds the functions of the failed test's path shown.
	MaxFuncs int
}

// Summarize orders a report's own files that the filter selects (a prefix
// of their path; "" or "." for all) least covered first, and keeps limit
// of them, without their ranges.
func Summarize(r *Report, filter string, limit int) Summary {
	s := Summary{Report: &Report{Tool: r.Tool, ProjectDir: r.ProjectDir, Totals: r.Totals, Apart: r.Apart, Notes: r.Notes, FailedPath: r.FailedPath, PathError: r.PathError}, Filter: filter}
	var files []File
	for _, f := range r.Files {
		if f.Kind == Own && selects(filter, f.Path) {
			f.Uncovered, f.CoveredRanges, f.NoCode = nil, nil, nil
			files = append(files, f)
		}
	}
	slices.SortFunc(files, func(a, b File) int {
		return cmp.Or(cmp.Compare(a.Percent(), b.Percent()), cmp.Compare(a.Path, b.Path))
	})
	s.Matched = len(files)
	s.MaxFuncs = limit
	s.Report.Files = files[:min(limit, len(files))]
	return s
}

func selects(filter, path string) bool {
	filter = strings.TrimPrefix(filter, "./")
	return filter == "" || filter == "." || strings.HasPrefix(path, filter)
}

// ReadSummary summarises a stored report (see Summarize).
func ReadSummary(rd io.Reader, filter string, limit int) (Summary, error) {
	sc := scanner(rd)
	r, err := readHeader(sc)
	if err != nil {
		return Summary{}, err
	}
	filter = r.relative(filter)
	for sc.Scan() {
		var f File
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			return Summary{}, fmt.Errorf("the stored coverage report: %w", err)
		}
		if f.Kind == Own && selects(filter, f.Path) {
			r.Files = append(r.Files, f)
		}
	}
	if err := sc.Err(); err != nil {
		return Summary{}, fmt.Errorf("reading the stored coverage report: %w", err)
	}
	return Summarize(r, filter, limit), nil
}

// ReadFile returns one file of a stored report, its ranges included, and
// the report's header; nil when the report has no file of that path. Only
// the matching line is decoded.
func ReadFile(rd io.Reader, path string) (*File, *Report, error) {
	sc := scanner(rd)
	r, err := readHeader(sc)
	if err != nil {
		return nil, nil, err
	}
	return firstFile(sc, -1, filePrefix(r.relative(path)), r)
}

// filePrefix begins the stored line of the file at path.
func filePrefix(path string) []byte {
	p, _ := json.Marshal(path)
	return append(append(append([]byte(nil), pathPrefix...), p...), ',')
}

// firstFile decodes the first of sc's lines (of at most budget bytes in
// all when budget ≥ 0) that begins with prefix; nil when none does.
func firstFile(sc *bufio.Scanner, budget int64, prefix []byte, r *Report) (*File, *Report, error) {
	for budget != 0 && sc.Scan() {
		if budget > 0 {
			budget = max(budget-int64(len(sc.Bytes()))-1, 0)
		}
		if !bytes.HasPrefix(sc.Bytes(), prefix) {
			continue
		}
		var f File
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			return nil, nil, fmt.Errorf("the stored coverage report: %w", err)
		}
		return &f, r, nil
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("reading the stored coverage report: %w", err)
	}
	return nil, r, nil
}

// relative is path as the report names it: relative to the project for a
// path in it.
func (r *Report) relative(path string) string {
	if filepath.IsAbs(path) && within(filepath.Clean(path), r.ProjectDir) {
		return newClassifier(r.ProjectDir, nil).rel(filepath.Clean(path))
	}
	return strings.TrimPrefix(path, "./")
}
