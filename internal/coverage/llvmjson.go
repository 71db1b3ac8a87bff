package coverage

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
)

// Bounds of one llvm-cov JSON export: more files, or more segments in a
// file, than any real project has is an error, not memory spent.
const (
	maxJSONFiles    = maxLCOVFiles
	maxJSONSegments = 5000000
)

// llvmJSONFile is the part of a file of llvm-cov's JSON export
// ("llvm.coverage.json.export") that line coverage needs.
type llvmJSONFile struct {
	Filename string         `json:"filename"`
	Segments [][]jsonScalar `json:"segments"`
	Summary  struct {
		Lines struct {
			Count   int `json:"count"`
			Covered int `json:"covered"`
		} `json:"lines"`
	} `json:"summary"`
}

// jsonScalar is a segment's field: a number, or a flag, which older
// exports (SwiftPM's "version": "2.0.0") write as 0 or 1 and newer ones as
// false or true.
type jsonScalar float64

func (v *jsonScalar) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true":
		*v = 1
	case "false":
		*v = 0
	default:
		return json.Unmarshal(b, (*float64)(v))
	}
	return nil
}

// segment is one of llvm-cov's coverage segments: where a region starts or
// ends, with the count from there on.
type segment struct {
	line                 int
	count                int64
	hasCount, entry, gap bool
}

// ReadLLVMJSON reads llvm-cov's JSON export (what `llvm-cov export`
// writes without -format, and what SwiftPM's --enable-code-coverage keeps)
// into a report of dir's files; what is under generated is generated.
// The files are decoded one at a time: the export of a large project is
// hundreds of MiB, most of it the functions' regions, which are skipped.
func ReadLLVMJSON(r io.Reader, dir string, generated []string) (*Report, error) {
	lc := newLineCounts()
	if err := readLLVMJSON(json.NewDecoder(r), dir, lc); err != nil {
		return nil, fmt.Errorf("reading llvm-cov's JSON: %w", err)
	}
	return lc.report(ToolLLVM, newClassifier(dir, generated)), nil
}

// readLLVMJSON walks {"data": [{"files": [FILE…], …}…], …}.
func readLLVMJSON(d *json.Decoder, dir string, lc *lineCounts) error {
	files, seen := 0, false
	err := eachKey(d, func(key string) error {
		if key != "data" {
			return skipValue(d)
		}
		seen = true
		return eachElement(d, func() error {
			return eachKey(d, func(key string) error {
				if key != "files" {
					return skipValue(d)
				}
				return eachElement(d, func() error {
					if files++; files > maxJSONFiles {
						return fmt.Errorf("more than %d files", maxJSONFiles)
					}
					var f llvmJSONFile
					if err := d.Decode(&f); err != nil {
						return err
					}
					return addJSONFile(&f, dir, lc)
				})
			})
		})
	})
	if err == nil && !seen {
		err = errors.New(`no "data": not an llvm-cov export`)
	}
	return err
}

// addJSONFile adds a file's lines, folded from its segments as llvm-cov
// folds them (see lineStats), and llvm-cov's own line figures.
func addJSONFile(f *llvmJSONFile, dir string, lc *lineCounts) error {
	if f.Filename == "" {
		return errors.New("a file without a filename")
	}
	if len(f.Segments) > maxJSONSegments {
		return fmt.Errorf("%s: more than %d segments", f.Filename, maxJSONSegments)
	}
	segs := make([]segment, 0, len(f.Segments))
	for _, s := range f.Segments {
		// [line, column, count, hasCount, isRegionEntry(, isGapRegion)]
		if len(s) < 5 || s[0] < 1 || s[0] > math.MaxInt32 || s[2] < 0 {
			return fmt.Errorf("%s: bad segment %v", f.Filename, s)
		}
		seg := segment{line: int(s[0]), count: int64(min(s[2], math.MaxInt64/2)), hasCount: s[3] != 0, entry: s[4] != 0}
		if len(s) > 5 {
			seg.gap = s[5] != 0
		}
		segs = append(segs, seg)
	}
	path := filepath.Clean(f.Filename)
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	lineStats(segs, func(line int, count int64) { lc.add(path, line, count) })
	lc.file(path) // a file without code keeps its figures
	lc.summary[path] = [2]int{f.Summary.Lines.Count, f.Summary.Lines.Covered}
	return nil
}

// lineStats calls mapped with each line the segments give a count, as
// llvm-cov's LineCoverageIterator does (llvm/ProfileData/Coverage): a
// line is mapped when a region with a count starts on it, or, unless a
// skipped region starts it, when one wraps into it from an earlier line;
// its count is the largest of the wrapped region's and those of the
// regions (not gaps) starting on it.
func lineStats(segs []segment, mapped func(line int, count int64)) {
	if len(segs) == 0 {
		return
	}
	var wrapped *segment
	next := 0
	for line := segs[0].line; next < len(segs); line++ {
		start := next
		for next < len(segs) && segs[next].line == line {
			next++
		}
		on := segs[start:next]
		starts, entered := 0, false
		var most int64
		for i := range on {
			s := &on[i]
			entered = entered || (s.hasCount && s.entry)
			if !s.gap && s.hasCount && s.entry {
				starts++
				most = max(most, s.count)
			}
		}
		skipped := len(on) > 0 && !on[0].hasCount && on[0].entry
		if entered || (!skipped && wrapped != nil && wrapped.hasCount) {
			var count int64
			if wrapped != nil {
				count = wrapped.count
			}
			if starts > 0 {
				count = max(count, most)
			}
			mapped(line, count)
		}
		if len(on) > 0 {
			wrapped = &on[len(on)-1]
		}
	}
}

// eachKey reads an object, calling fn with the decoder at each key's value
// (which fn must read).
func eachKey(d *json.Decoder, fn func(key string) error) error {
	if err := expectDelim(d, '{'); err != nil {
		return err
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return err
		}
		key, ok := t.(string)
		if !ok {
			return fmt.Errorf("an object key, not %v", t)
		}
		if err := fn(key); err != nil {
			return err
		}
	}
	_, err := d.Token()
	return err
}

// eachElement reads an array, calling fn at each element.
func eachElement(d *json.Decoder, fn func() error) error {
	if err := expectDelim(d, '['); err != nil {
		return err
	}
	for d.More() {
		if err := fn(); err != nil {
			return err
		}
	}
	_, err := d.Token()
	return err
}

func expectDelim(d *json.Decoder, want json.Delim) error {
	t, err := d.Token()
	if err != nil {
		return err
	}
	if t != want {
		return fmt.Errorf("%v where %v was expected", t, want)
	}
	return nil
}

// skipValue reads one value token by token, keeping none of it.
func skipValue(d *json.Decoder) error {
	depth := 0
	for {
		t, err := d.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}
