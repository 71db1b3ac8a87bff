package coverage

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// goBlock is one line of a Go cover profile:
// "example.com/m/pkg/f.go:3.21,4.11 1 1" (start line.col, end line.col,
// statements, count).
type goBlock struct {
	file               string
	startLine, endLine int
	key                string // the position, which identifies the block
	stmts              int
	count              int64
}

func parseGoBlock(line string) (goBlock, error) {
	var b goBlock
	colon := strings.LastIndexByte(line, ':')
	if colon < 0 {
		return b, fmt.Errorf("no file:position in %q", line)
	}
	b.file = line[:colon]
	fields := strings.Fields(line[colon+1:])
	if len(fields) != 3 {
		return b, fmt.Errorf("want position, statements and count in %q", line)
	}
	start, end, ok := strings.Cut(fields[0], ",")
	if !ok {
		return b, fmt.Errorf("bad position in %q", line)
	}
	var err1, err2, err3, err4 error
	b.startLine, err1 = lineOf(start)
	b.endLine, err2 = lineOf(end)
	b.stmts, err3 = strconv.Atoi(fields[1])
	b.count, err4 = strconv.ParseInt(fields[2], 10, 64)
	if err := firstErr(err1, err2, err3, err4); err != nil || b.endLine < b.startLine || b.stmts < 0 || b.count < 0 {
		return b, fmt.Errorf("bad block in %q", line)
	}
	b.key = b.file + ":" + fields[0]
	return b, nil
}

// lineOf reads the line of "line.col".
func lineOf(pos string) (int, error) {
	l, _, _ := strings.Cut(pos, ".")
	n, err := strconv.Atoi(l)
	if err == nil && n <= 0 {
		err = fmt.Errorf("line %d", n)
	}
	return n, err
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// maxGoBlockSpan bounds the lines one block may span, so that a hostile
// profile cannot make a report of billions of lines.
const maxGoBlockSpan = 100000

// ParseGoProfile reads a Go cover profile. Blocks at the same position (one
// per test binary under -coverpkg) are one block whose counts add up, as `go
// tool cover` merges them. Import paths under module become files in dir;
// others are kept as the profile names them.
func ParseGoProfile(r io.Reader, module, dir string, generated []string) (*Report, error) {
	blocks, err := readGoBlocks(r)
	if err != nil {
		return nil, err
	}
	lc := newLineCounts()
	paths := map[string]string{} // a profile names each file in every block of it
	for i := range blocks {
		b := &blocks[i]
		path, ok := paths[b.file]
		if !ok {
			path = goFilePath(b.file, module, dir)
			paths[b.file] = path
		}
		fc := lc.file(path)
		for l := b.startLine; l <= b.endLine; l++ {
			fc.add(l, b.count)
		}
		s := lc.stmts[path]
		s[0] += b.stmts
		if b.count > 0 {
			s[1] += b.stmts
		}
		lc.stmts[path] = s
	}
	return lc.report(ToolGo, newClassifier(dir, generated)), nil
}

// readGoBlocks reads a profile's blocks in the order of their first line,
// those at one position merged.
func readGoBlocks(r io.Reader) ([]goBlock, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4<<10), 1<<20) // grown for a long line
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "mode: ") {
		return nil, fmt.Errorf("not a Go cover profile: no mode line")
	}
	at := map[string]int{} // a block's position → its index in blocks
	var blocks []goBlock
	for n := 2; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "mode: ") {
			continue // go test writes one mode line per package merged
		}
		b, err := parseGoBlock(line)
		if err != nil {
			return nil, fmt.Errorf("cover profile line %d: %w", n, err)
		}
		if b.endLine-b.startLine > maxGoBlockSpan {
			return nil, fmt.Errorf("cover profile line %d: a block of %d lines", n, b.endLine-b.startLine)
		}
		if i, ok := at[b.key]; ok {
			blocks[i].count += b.count
			continue
		}
		at[b.key] = len(blocks)
		blocks = append(blocks, b)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the cover profile: %w", err)
	}
	return blocks, nil
}

// goFilePath turns a profile's file name (an import path and a file name)
// into a path: in dir for the module's packages.
func goFilePath(file, module, dir string) string {
	if filepath.IsAbs(file) {
		return filepath.Clean(file)
	}
	if rest, ok := strings.CutPrefix(file, module+"/"); ok && module != "" {
		return filepath.Join(dir, filepath.FromSlash(rest))
	}
	return file
}

// GoModule reads the module path of dir's go.mod.
func GoModule(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		f := strings.Fields(string(line))
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], "\"`"), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", filepath.Join(dir, "go.mod"))
}
