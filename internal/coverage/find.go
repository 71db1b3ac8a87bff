package coverage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// FindFile is ReadFile for a stored report it can seek in: its files are
// written in path order (see Write), so the file's line is found by a
// binary search over byte offsets, reading a few KiB at each step rather
// than the whole report (a report of 10,000 files is megabytes).
func FindFile(ra io.ReaderAt, size int64, path string) (*File, *Report, error) {
	sc := scanner(io.NewSectionReader(ra, 0, size))
	r, err := readHeader(sc)
	if err != nil {
		return nil, nil, err
	}
	want := r.relative(path)
	lo, hi := int64(len(sc.Bytes())+1), size // the line sought starts in [lo, hi)
	for hi-lo > findScanBytes {
		mid := lo + (hi-lo)/2
		start, err := lineStart(ra, mid, size)
		if err != nil {
			return nil, nil, err
		}
		if start >= hi {
			hi = mid
			continue
		}
		p, err := pathAt(ra, start, size)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case p == want:
			return decodeLineAt(ra, start, size, r)
		case p < want:
			lo = start + 1
		default:
			hi = start
		}
	}
	return scanFrom(ra, lo, hi, size, want, r)
}

// findScanBytes is where the binary search stops and the lines left are
// read through.
const findScanBytes = 32 << 10

// lineStart is the offset of the first line that starts at or after off.
func lineStart(ra io.ReaderAt, off, size int64) (int64, error) {
	buf := make([]byte, 4096)
	for pos := off - 1; pos < size; pos += int64(len(buf)) {
		n, err := ra.ReadAt(buf, pos)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return pos + int64(i) + 1, nil
		}
		if err != nil && err != io.EOF {
			return 0, err
		}
		if n == 0 {
			break
		}
	}
	return size, nil
}

// pathPrefix begins each file's line of a stored report.
var pathPrefix = []byte(`{"path":`)

// pathAt reads the path of the file whose line starts at off.
func pathAt(ra io.ReaderAt, off, size int64) (string, error) {
	buf := make([]byte, min(4096+len(pathPrefix)+2, int(size-off)))
	n, err := ra.ReadAt(buf, off)
	if err != nil && err != io.EOF {
		return "", err
	}
	rest, ok := bytes.CutPrefix(buf[:n], pathPrefix)
	var p string
	if ok {
		err = json.NewDecoder(bytes.NewReader(rest)).Decode(&p)
	}
	if !ok || err != nil {
		return "", fmt.Errorf("the stored coverage report: the line at byte %d names no file", off)
	}
	return p, nil
}

// decodeLineAt decodes the file whose line starts at off.
func decodeLineAt(ra io.ReaderAt, off, size int64, r *Report) (*File, *Report, error) {
	sc := scanner(io.NewSectionReader(ra, off, size-off))
	if !sc.Scan() {
		return nil, nil, fmt.Errorf("reading the stored coverage report: %v", sc.Err())
	}
	var f File
	if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
		return nil, nil, fmt.Errorf("the stored coverage report: %w", err)
	}
	return &f, r, nil
}

// scanFrom reads the lines that start in [lo, hi) for the file's.
func scanFrom(ra io.ReaderAt, lo, hi, size int64, want string, r *Report) (*File, *Report, error) {
	start, err := lineStart(ra, lo, size)
	if err != nil {
		return nil, nil, err
	}
	if start >= hi {
		return nil, r, nil
	}
	sc := scanner(bufio.NewReader(io.NewSectionReader(ra, start, size-start)))
	return firstFile(sc, hi-start, filePrefix(want), r)
}
