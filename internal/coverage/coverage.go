// Package coverage reads what a coverage run leaves (a Go cover profile,
// gcov's JSON, a Rust or clang build's LLVM profiles through llvm-cov's
// LCOV, SwiftPM's llvm-cov JSON export, xccov's report and archive of an Xcode result
// bundle) into one model of line coverage, keeps it as JSON lines beside the run's
// output, and answers questions about it: the totals, the files least
// covered, one file's uncovered line ranges.
//
// A line is instrumented when the toolchain counts it (a Go block spans
// it, gcov or llvm-cov lists it) and covered when any count on it is above
// zero, as gcov counts lines. Go's own unit is the statement: a Go report
// carries the statement counts too, which are what `go tool cover -func`
// totals. llvm-cov's figures are llvm-cov report's, which count a line
// several functions share (a closure's) once for each; its ranges list
// each line once.
//
// Totals are over the project's own files. Vendored, generated, toolchain
// and other projects' files (a dependency's, a system header's) are listed
// apart and counted apart: a run's figure is the code its authors wrote.
package coverage

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
)

// Kind says whose a covered file is.
type Kind string

// The kinds of file: only Own files count in a report's totals.
const (
	Own       Kind = "own"
	Vendored  Kind = "vendored"  // vendor/, third_party/ and their kin in the project; cargo's registry
	Generated Kind = "generated" // a build directory's, or marked generated in its head
	Toolchain Kind = "toolchain" // the compiler's and the system's (/usr/include…, Rust's library)
	External  Kind = "external"  // outside the project: a dependency's
)

// Range is lines From to To, both included.
type Range struct{ From, To int }

// MarshalJSON writes a range as [from,to], the compact form a report of
// 10,000 files needs.
func (r Range) MarshalJSON() ([]byte, error) {
	return []byte("[" + strconv.Itoa(r.From) + "," + strconv.Itoa(r.To) + "]"), nil
}

// UnmarshalJSON reads [from,to].
func (r *Range) UnmarshalJSON(b []byte) error {
	var a [2]int
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	r.From, r.To = a[0], a[1]
	return nil
}

// Counts are covered and instrumented lines (and, for Go, statements).
type Counts struct {
	Files             int `json:"files"`
	Lines             int `json:"lines"`
	Covered           int `json:"covered"`
	Statements        int `json:"statements,omitempty"`
	CoveredStatements int `json:"covered_statements,omitempty"`
}

// Percent is covered lines in percent of instrumented ones (100 for none).
func (c Counts) Percent() float64 { return percent(c.Covered, c.Lines) }

// StatementPercent is Go's figure, covered statements in percent.
func (c Counts) StatementPercent() float64 { return percent(c.CoveredStatements, c.Statements) }

func percent(n, of int) float64 {
	if of == 0 {
		return 100
	}
	return float64(n) * 100 / float64(of)
}

func (c *Counts) add(f *File) {
	c.Files++
	c.Lines += f.Lines
	c.Covered += f.Covered
	c.Statements += f.Statements
	c.CoveredStatements += f.CoveredStatements
}

// File is one source file's coverage.
type File struct {
	// Path is relative to the project for a file in it, else absolute.
	Path              string  `json:"path"`
	Kind              Kind    `json:"kind"`
	Lines             int     `json:"lines"`
	Covered           int     `json:"covered"`
	Statements        int     `json:"statements,omitempty"`
	CoveredStatements int     `json:"covered_statements,omitempty"`
	Uncovered         []Range `json:"uncovered,omitempty"`
	CoveredRanges     []Range `json:"covered_ranges,omitempty"`
	// Funcs are the file's functions where the tool names them (gcov).
	Funcs []Func `json:"funcs,omitempty"`
	// NoCode are the lines inside the ranges that hold no code (blank,
	// comments): a range spans them, and they are not counted. A line
	// between two ranges holds none either.
	NoCode []Range `json:"no_code,omitempty"`
}

// Percent is the file's covered lines in percent.
func (f *File) Percent() float64 { return percent(f.Covered, f.Lines) }

// Report is a run's coverage.
type Report struct {
	Tool       string `json:"tool"` // ToolGo, ToolGcov, ToolLLVM or ToolXccov
	ProjectDir string `json:"project_dir"`
	// Totals count the project's own files; Apart the others, by kind.
	Totals Counts          `json:"totals"`
	Apart  map[Kind]Counts `json:"apart,omitempty"`
	// Files are every file, in path order.
	Files []File   `json:"-"`
	Notes []string `json:"notes,omitempty"`
	// FailedPath is what the first failed test ran, from a rerun of it
	// alone with coverage; PathError says why a failed run has none.
	FailedPath *TestPath `json:"failed_path,omitempty"`
	PathError  string    `json:"path_error,omitempty"`
}

// Tools that write coverage data.
const (
	ToolGo   = "go"
	ToolGcov = "gcov"
	ToolLLVM = "llvm-cov" // rustc's -C instrument-coverage, read by llvm-cov
)

// report makes the report: each file classified, its lines folded into
// ranges, and the totals counted.
func (lc *lineCounts) report(tool string, c *classifier) *Report {
	r := &Report{Tool: tool, ProjectDir: c.project}
	for path, lines := range lc.lines {
		f := fileOf(lines)
		f.Path, f.Kind = c.classify(path)
		f.Funcs = slices.SortedFunc(maps.Keys(lc.funcs[path]), func(a, b Func) int {
			return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.Name, b.Name))
		})
		s := lc.stmts[path]
		f.Statements, f.CoveredStatements = s[0], s[1]
		if sum, ok := lc.summary[path]; ok {
			f.Lines, f.Covered = sum[0], sum[1]
		}
		r.Files = append(r.Files, f)
	}
	slices.SortFunc(r.Files, byPath)
	r.count()
	return r
}

// count sets the totals from the files.
func (r *Report) count() {
	r.Totals, r.Apart = Counts{}, nil
	for i := range r.Files {
		f := &r.Files[i]
		if f.Kind == Own {
			r.Totals.add(f)
			continue
		}
		if r.Apart == nil {
			r.Apart = map[Kind]Counts{}
		}
		c := r.Apart[f.Kind]
		c.add(f)
		r.Apart[f.Kind] = c
	}
}
