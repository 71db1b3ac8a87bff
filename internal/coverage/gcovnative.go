package coverage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// gcov's line counts, computed here from the notes and data the way gcov
// 12 computes them (gcov.cc: solve_flow_graph, add_line_counts,
// accumulate_line_counts), so that a report is the same whichever read
// the files; TestNativeGcovMatchesGcov holds it to gcov's own JSON.
//
// Reading them here spares a gcov process: its JSON took 15 of the 35-45
// ms of zlib's whole coverage run (docs/PERFORMANCE.md).

// readGcovNative adds the data files' lines and functions to lc. Any file
// it does not read as gcov would (see errGcovNative), and a C++ name it
// cannot demangle as gcov does, makes it fail, and the caller runs gcov.
func readGcovNative(ctx context.Context, data []string, lc *lineCounts) error {
	for _, d := range data {
		if err := ctx.Err(); err != nil {
			return err
		}
		notes, err := readGcovObject(d)
		if err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
		if err := notes.addTo(lc); err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
	}
	return nil
}

// readGcovObject reads a data file and the notes beside it (gcov's
// name for them: the data file's, its extension replaced).
func readGcovObject(data string) (*gcovNotes, error) {
	nb, err := os.ReadFile(strings.TrimSuffix(data, ".gcda") + ".gcno")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errGcovNative, err)
	}
	notes, err := parseGcovNotes(nb)
	if err != nil {
		return nil, err
	}
	db, err := os.ReadFile(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errGcovNative, err)
	}
	return notes, notes.readData(db)
}

// gcovBlock names a block of one of an object's functions.
type gcovBlock struct{ fn, block int }

// nativeLine is a line's state while an object's counts are added up.
type nativeLine struct {
	exists bool
	sum    int64       // its blocks' counts
	ends   []gcovBlock // the blocks whose lines in a file end on it
}

// nativeLines are a file's lines, by number; group functions keep their
// own. Lines far past those seen (a generated file's, a corrupt number) go
// to a map rather than a slice that long.
type nativeLines struct {
	file  string
	first int // the number of lines[0]
	lines []nativeLine
	far   map[int]*nativeLine
}

func (l *nativeLines) at(n int) *nativeLine {
	i := n - l.first
	if line := l.far[n]; line != nil {
		return line
	}
	if i < len(l.lines) {
		return &l.lines[i]
	}
	// The slice grows to lines near those it has, so that a stray number
	// (a corrupt file) costs an entry, not megabytes.
	if i < maxDenseLine && i <= 2*len(l.lines)+4096 {
		l.lines = append(l.lines, make([]nativeLine, i+1-len(l.lines))...)
		return &l.lines[i]
	}
	if l.far == nil {
		l.far = map[int]*nativeLine{}
	}
	l.far[n] = &nativeLine{}
	return l.far[n]
}

// addTo adds the object's lines and functions to lc: a line's count is
// its blocks' counts summed, or, where blocks' lines end on it, the counts
// of the arcs entering those blocks from others (gcov adds the counts of
// the loops within the line too; that changes a count, never whether it
// is 0).
func (n *gcovNotes) addTo(lc *lineCounts) error {
	funcs, groups := n.counted()
	files := map[string]*nativeLines{}
	for fi, fn := range funcs {
		if strings.HasPrefix(fn.name, "_Z") {
			return fmt.Errorf("%w: the C++ name %s", errGcovNative, fn.name)
		}
		if err := fn.solve(); err != nil {
			return err
		}
		// tableOf is where gcov keeps a line: a group function's own
		// lines are its, the rest the file's.
		tableOf := func(file string, ln int) *nativeLines {
			if g := groups[fi]; g != nil && ln >= fn.start && ln <= fn.end && sameSource(file, fn.file) {
				return g
			}
			if files[file] == nil {
				files[file] = &nativeLines{file: file}
			}
			return files[file]
		}
		for b, locs := range fn.locs {
			for _, loc := range locs {
				if len(loc.lines) == 0 {
					continue
				}
				last := 0
				for _, ln := range loc.lines {
					l := tableOf(loc.file, ln).at(ln)
					l.exists = true
					l.sum += fn.blockCount[b]
					last = max(last, ln)
				}
				if b != 0 && b != fn.blocks-1 { // gcov's entry and exit
					l := tableOf(loc.file, last).at(last)
					l.ends = append(l.ends, gcovBlock{fi, b})
				}
			}
		}
		lc.addFunc(n.path(fn.file), Func{Name: fn.name, From: fn.start, To: fn.end})
	}
	for _, l := range files {
		n.addLines(lc, funcs, l)
	}
	for _, g := range groups {
		if g != nil {
			n.addLines(lc, funcs, g)
		}
	}
	return nil
}

// addLines adds a table's lines to lc.
func (n *gcovNotes) addLines(lc *lineCounts, funcs []*gcovFunc, l *nativeLines) {
	path := n.path(l.file)
	add := func(number int, line *nativeLine) {
		if !line.exists {
			return
		}
		count := line.sum
		if len(line.ends) > 0 {
			count = entering(funcs, line.ends)
		}
		if count >= 0 { // as the JSON's reader takes gcov's counts
			lc.add(path, number, count)
		}
	}
	for i := range l.lines {
		add(l.first+i, &l.lines[i])
	}
	for number, line := range l.far {
		add(number, line)
	}
}

// counted returns the functions gcov reports (not artificial, with
// counters), and for each one in a group (functions of a file that begin
// on the same line, as a C++ template's instances do) its own lines.
func (n *gcovNotes) counted() ([]*gcovFunc, []*nativeLines) {
	type start struct {
		file string
		line int
	}
	starts := map[start]int{}
	for _, fn := range n.funcs {
		if !fn.artificial {
			starts[start{filepath.Clean(fn.file), fn.start}]++
		}
	}
	var funcs []*gcovFunc
	var groups []*nativeLines
	for _, fn := range n.funcs {
		if fn.artificial || len(fn.counts) == 0 {
			continue
		}
		funcs = append(funcs, fn)
		var g *nativeLines
		if starts[start{filepath.Clean(fn.file), fn.start}] > 1 && fn.end >= fn.start {
			g = &nativeLines{file: fn.file, first: fn.start}
		}
		groups = append(groups, g)
	}
	return funcs, groups
}

// entering sums the counts of the arcs that enter the blocks from blocks
// not among them.
func entering(funcs []*gcovFunc, blocks []gcovBlock) int64 {
	var sum int64
	for _, b := range blocks {
		fn := funcs[b.fn]
		for _, a := range fn.preds[b.block] {
			if !containsBlock(blocks, gcovBlock{b.fn, fn.arcs[a].src}) {
				sum += fn.arcCount[a]
			}
		}
	}
	return sum
}

func containsBlock(blocks []gcovBlock, b gcovBlock) bool {
	for _, x := range blocks {
		if x == b {
			return true
		}
	}
	return false
}

func sameSource(a, b string) bool { return a == b || filepath.Clean(a) == filepath.Clean(b) }

// path is a source file's absolute path: a relative name is the
// compilation directory's.
func (n *gcovNotes) path(file string) string {
	if !filepath.IsAbs(file) {
		file = filepath.Join(n.cwd, file)
	}
	return filepath.Clean(file)
}
