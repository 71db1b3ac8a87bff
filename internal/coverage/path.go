package coverage

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
)

// Func is a function's extent in its file, lines From to To.
type Func struct {
	Name string `json:"name"`
	From int    `json:"from"`
	To   int    `json:"to"`
}

// TestPath is what one test ran of the project's own code, read from a
// coverage run of that test alone: the functions it entered and their
// lines that ran, file by file in path order, each file's functions in
// the file's order.
type TestPath struct {
	Test string `json:"test"`
	// At is the failure's file:line as the test's report gives it.
	At string `json:"at,omitempty"`
	// OtherFailed counts the failed tests not rerun (only the first is).
	OtherFailed int        `json:"other_failed,omitempty"`
	Files       []PathFile `json:"files"`
}

// PathFile is one file's part of a test's path.
type PathFile struct {
	Path  string     `json:"path"`
	Funcs []PathFunc `json:"funcs"`
}

// PathFunc is a function the test entered and its lines that ran; Name is
// "" for lines outside any function known.
type PathFunc struct {
	Name  string  `json:"name"`
	Lines []Range `json:"lines"`
}

// PathOf is the path of the test whose single run r reports: each own
// file's covered lines split among its functions. Covered ranges span the
// lines nothing counts (blanks, comments), so a piece of a range outside
// every function of a file whose functions are known is such lines, and
// left out.
func (r *Report) PathOf(test string) *TestPath {
	p := &TestPath{Test: test}
	for i := range r.Files {
		f := &r.Files[i]
		if f.Kind != Own || len(f.CoveredRanges) == 0 {
			continue
		}
		funcs := f.Funcs
		if r.Tool == ToolGo {
			funcs = goFuncs(filepath.Join(r.ProjectDir, filepath.FromSlash(f.Path)))
		}
		if pf := splitByFunc(f.Path, f.CoveredRanges, funcs); len(pf.Funcs) > 0 {
			p.Files = append(p.Files, pf)
		}
	}
	return p
}

// splitByFunc divides covered ranges among funcs.
func splitByFunc(path string, covered []Range, funcs []Func) PathFile {
	pf := PathFile{Path: path}
	if len(funcs) == 0 {
		pf.Funcs = []PathFunc{{Lines: slices.Clone(covered)}}
		return pf
	}
	funcs = slices.SortedFunc(slices.Values(funcs), func(a, b Func) int { return cmp.Compare(a.From, b.From) })
	index := map[string]int{}
	add := func(name string, from, to int) {
		i, ok := index[name]
		if !ok {
			i = len(pf.Funcs)
			index[name] = i
			pf.Funcs = append(pf.Funcs, PathFunc{Name: name})
		}
		pf.Funcs[i].Lines = append(pf.Funcs[i].Lines, Range{from, to})
	}
	for _, rg := range covered {
		for _, fn := range funcs {
			if fn.To >= rg.From && fn.From <= rg.To {
				add(fn.Name, max(rg.From, fn.From), min(rg.To, fn.To))
			}
		}
	}
	return pf
}

// goFuncs lists a Go file's functions as go tool cover -func names them
// (a method as its name alone); none when the file cannot be parsed.
func goFuncs(path string) []Func {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var funcs []Func
	for _, d := range file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
			funcs = append(funcs, Func{Name: fd.Name.Name, From: fset.Position(fd.Pos()).Line, To: fset.Position(fd.End()).Line})
		}
	}
	return funcs
}

// Ran reports whether the path holds line of file.
func (p *TestPath) Ran(file string, line int) bool {
	for _, f := range p.Files {
		if f.Path != file {
			continue
		}
		for _, fn := range f.Funcs {
			for _, r := range fn.Lines {
				if r.From <= line && line <= r.To {
					return true
				}
			}
		}
	}
	return false
}

// WriteText writes the path on one line, at most maxFuncs functions, the
// rest counted: "the failing test TestX ran: parse.c: parse_number
// 40-52,60, skip 70; lib.c: check 3-7 → failed at parse.c:72".
func (p *TestPath) WriteText(b *strings.Builder, maxFuncs int) {
	fmt.Fprintf(b, "the failing test %s ran:", p.Test)
	var files []string
	shown, total := 0, 0
	for _, f := range p.Files {
		total += len(f.Funcs)
		if shown == maxFuncs {
			continue
		}
		var funcs []string
		for _, fn := range f.Funcs[:min(len(f.Funcs), maxFuncs-shown)] {
			funcs = append(funcs, strings.TrimSpace(fn.Name+" "+rangesText(fn.Lines)))
			shown++
		}
		files = append(files, f.Path+": "+strings.Join(funcs, ", "))
	}
	if len(p.Files) == 0 {
		files = append(files, "none of the project's own lines")
	}
	b.WriteString(" " + strings.Join(files, "; "))
	if total > shown {
		fmt.Fprintf(b, " … and %d more functions", total-shown)
	}
	if p.At != "" {
		b.WriteString(" → failed at " + p.At)
	}
	if p.OtherFailed > 0 {
		fmt.Fprintf(b, " (%d other failed tests not rerun)", p.OtherFailed)
	}
	b.WriteByte('\n')
}

// rangesText is "40-52,60".
func rangesText(rs []Range) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprint(r.From)
		if r.To != r.From {
			parts[i] += fmt.Sprintf("-%d", r.To)
		}
	}
	return strings.Join(parts, ",")
}
