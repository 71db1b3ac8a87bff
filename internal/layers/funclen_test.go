package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function may be, from its func keyword to
// its closing brace: beyond it, a function does several things that want
// names of their own.
const maxFuncLines = 60

// TestNoLongFunctions: no function or method outside tests, in cmd/ or
// internal/, is over maxFuncLines lines.
func TestNoLongFunctions(t *testing.T) {
	fset := token.NewFileSet()
	for _, root := range []string{"../../cmd", "../../internal"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel := strings.TrimSuffix(strings.TrimPrefix(filepath.ToSlash(path), "../../"), ".go")
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
				if n > maxFuncLines {
					t.Errorf("%s.go: %s is %d lines (at most %d): split it into named steps", rel, fn.Name.Name, n, maxFuncLines)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
