package coverage

import (
	"maps"
	"slices"
)

// lineCounts gathers counts per file and line before a report is made.
type lineCounts struct {
	lines map[string]*fileCounts // absolute path → its lines' counts
	stmts map[string][2]int      // absolute path → statements, covered (Go)
	// summary holds the tool's own line figures where they are not the
	// distinct lines counted (llvm-cov's, see readLCOV): lines, covered.
	summary map[string][2]int
	funcs   map[string]map[Func]bool // absolute path → its functions (gcov)
}

func newLineCounts() *lineCounts {
	return &lineCounts{lines: map[string]*fileCounts{}, stmts: map[string][2]int{}, summary: map[string][2]int{}, funcs: map[string]map[Func]bool{}}
}

func (lc *lineCounts) add(path string, line int, count int64) {
	lc.file(path).add(line, count)
}

// file is path's counts, made empty on first use (a file without code
// keeps its figures).
func (lc *lineCounts) file(path string) *fileCounts {
	f := lc.lines[path]
	if f == nil {
		f = &fileCounts{}
		lc.lines[path] = f
	}
	return f
}

// addFunc adds a function of a file, once however many data files name it
// (an inline function of a header is in each that includes it).
func (lc *lineCounts) addFunc(path string, fn Func) {
	if fn.From <= 0 || fn.To < fn.From {
		return
	}
	if lc.funcs[path] == nil {
		lc.funcs[path] = map[Func]bool{}
	}
	lc.funcs[path][fn] = true
}

// maxDenseLine is the last line a file's counts keep in a slice indexed by
// line; lines past it (a generated file of a million lines) go to a map.
const maxDenseLine = 1 << 20

// fileCounts are one file's counts by line. A source file's lines are
// numbered from 1 and reports list most of them, so they are kept in a
// slice indexed by line: adding a count and listing the lines in order
// cost no hashing and no sort, which a map of lines did for every line of
// every report.
type fileCounts struct {
	counts []int64 // by line; meaningful where counted is set
	seen   []bool  // the line has a count
	far    map[int]int64
}

func (f *fileCounts) add(line int, count int64) {
	if line < 1 || line > maxDenseLine {
		if f.far == nil {
			f.far = map[int]int64{}
		}
		f.far[line] += count
		return
	}
	if line >= len(f.counts) {
		n := max(line+1, 2*len(f.counts))
		f.counts = append(f.counts, make([]int64, n-len(f.counts))...)
		f.seen = append(f.seen, make([]bool, n-len(f.seen))...)
	}
	f.counts[line] += count
	f.seen[line] = true
}

// each calls fn with each counted line and its count, in line order.
func (f *fileCounts) each(fn func(line int, count int64)) {
	far := slices.Sorted(maps.Keys(f.far))
	i := 0
	for ; i < len(far) && far[i] < 1; i++ {
		fn(far[i], f.far[far[i]])
	}
	for line, ok := range f.seen {
		if ok {
			fn(line, f.counts[line])
		}
	}
	for ; i < len(far); i++ {
		fn(far[i], f.far[far[i]])
	}
}

// fileOf folds a file's line counts into runs of covered and uncovered
// lines: a run spans the lines between (blank, comments) that nothing
// counts, so it goes on while the counted lines stay covered (or not).
func fileOf(lines *fileCounts) File {
	var f File
	lastCovered := false
	lines.each(func(n int, count int64) {
		covered := count > 0
		ranges := &f.Uncovered
		if covered {
			f.Covered++
			ranges = &f.CoveredRanges
		}
		if f.Lines > 0 && covered == lastCovered {
			last := &(*ranges)[len(*ranges)-1]
			if n > last.To+1 {
				f.NoCode = append(f.NoCode, Range{last.To + 1, n - 1})
			}
			last.To = n
		} else {
			*ranges = append(*ranges, Range{n, n})
		}
		f.Lines++
		lastCovered = covered
	})
	return f
}
