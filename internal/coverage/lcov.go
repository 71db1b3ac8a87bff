package coverage

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
)

// Bounds of one LCOV report: a longer line, more files or more counted
// lines than any real project has is an error, not memory spent.
const (
	maxLCOVLine  = 1 << 20
	maxLCOVFiles = 200000
	maxLCOVLines = 20000000
)

// readLCOV reads an LCOV trace (llvm-cov export -format=lcov) line by
// line: SF names a file, each DA its line's count, LF and LH its lines and
// covered lines, end_of_record ends it. Relative names are dir's.
//
// The DA lines are what llvm-cov show marks, each line once: they make the
// ranges. LF and LH are llvm-cov report's figures, which sum its functions'
// lines, so that a line two functions share (a closure on its parent's
// line) counts once for each: they are the file's figures, as the
// toolchain's own report gives them.
func readLCOV(r io.Reader, dir string, lc *lineCounts) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLCOVLine)
	file, files, lines := "", 0, 0
	for n := 1; sc.Scan(); n++ {
		tag, rest, _ := strings.Cut(sc.Text(), ":")
		switch tag {
		case "LF", "LH":
			v, err := strconv.Atoi(rest)
			if err != nil || v < 0 || file == "" {
				return fmt.Errorf("LCOV line %d: bad %s record %q", n, tag, sc.Text())
			}
			sum := lc.summary[file]
			if tag == "LF" {
				sum[0] = v
			} else {
				sum[1] = v
			}
			lc.summary[file] = sum
		case "SF":
			if files++; files > maxLCOVFiles {
				return fmt.Errorf("LCOV line %d: more than %d files", n, maxLCOVFiles)
			}
			file = filepath.Clean(rest)
			if !filepath.IsAbs(file) {
				file = filepath.Join(dir, file)
			}
		case "DA":
			line, count, err := parseDA(rest)
			if err != nil || file == "" {
				return fmt.Errorf("LCOV line %d: bad DA record %q", n, sc.Text())
			}
			if lines++; lines > maxLCOVLines {
				return fmt.Errorf("LCOV line %d: more than %d counted lines", n, maxLCOVLines)
			}
			lc.add(file, line, count)
		case "end_of_record":
			file = ""
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading LCOV: %w", err)
	}
	return nil
}

// parseDA reads "line,count[,checksum]"; a count beyond int64 is the
// largest int64 (it is covered either way).
func parseDA(s string) (int, int64, error) {
	l, rest, ok := strings.Cut(s, ",")
	if !ok {
		return 0, 0, fmt.Errorf("no count")
	}
	c, _, _ := strings.Cut(rest, ",")
	line, err := strconv.Atoi(l)
	if err != nil || line <= 0 {
		return 0, 0, fmt.Errorf("bad line %q", l)
	}
	count, err := strconv.ParseUint(c, 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("bad count %q", c)
	}
	return line, int64(min(count, math.MaxInt64)), nil
}
