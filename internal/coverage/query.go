package coverage

import (
	"io"
	"os"
)

// Bounds of an answer about a stored run's coverage.
const (
	maxListedFiles = 100 // files listed
	MaxRanges      = 400 // a file's uncovered ranges
	maxPathFuncs   = 500 // of the failed test's path
	// A comparison's: files listed, and ranges of each kind per file.
	maxChangedFiles = 50
	maxChangeRanges = 20
)

// Answer is a stored run's coverage of a path: that file with its
// uncovered ranges (File), else the files under that path prefix, least
// covered first (Summary, bounded).
type Answer struct {
	File    *File
	Summary Summary
}

// Ask answers a coverage question on a run's stored coverage file f.
func Ask(f *os.File, path string) (Answer, error) {
	info, err := f.Stat()
	if err != nil {
		return Answer{}, err
	}
	file, rep, err := FindFile(f, info.Size(), path)
	if err != nil {
		return Answer{}, err
	}
	if file != nil {
		return Answer{File: file, Summary: Summarize(rep, "", 0)}, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Answer{}, err
	}
	s, err := ReadSummary(f, path, maxListedFiles)
	s.MaxFuncs = maxPathFuncs
	return Answer{Summary: s}, err
}

// AskSince compares a run's stored coverage with an older run's under
// path (see Compare), and says how many ranges of each kind a file may
// show: all of MaxRanges when the one file asked for is the answer.
func AskSince(old, cur io.Reader, path string) (*Comparison, int, error) {
	c, err := Compare(old, cur, path, maxChangedFiles)
	if err != nil {
		return nil, 0, err
	}
	if len(c.Files) == 1 && c.Files[0].Path == c.Filter {
		return c, MaxRanges, nil
	}
	return c, maxChangeRanges, nil
}
