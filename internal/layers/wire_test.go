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

// wireOK are the packages whose types a tool's JSON may hold outside
// workflow/wire: the wire types themselves, the standard library's, the
// catalog's (Captured) and the duration argument type.
var wireOK = map[string]bool{"wire": true, "time": true, "json": true, "catalog": true, "duration": true}

// TestResultsAreWireTypes: no JSON field in a workflow package has a
// domain type (a verdict.Verdict, a store.Match): the tools' public shape
// is made of wire types, so a domain rename cannot change it unseen.
func TestResultsAreWireTypes(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir("../workflow", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "/wire/") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			for _, field := range st.Fields.List {
				if field.Tag == nil || !strings.Contains(field.Tag.Value, `json:"`) {
					continue
				}
				ast.Inspect(field.Type, func(m ast.Node) bool {
					if sel, ok := m.(*ast.SelectorExpr); ok {
						if pkg, ok := sel.X.(*ast.Ident); ok && !wireOK[pkg.Name] {
							t.Errorf("%s: a JSON field of type %s.%s: use a type of workflow/wire", fset.Position(field.Pos()), pkg.Name, sel.Sel.Name)
						}
					}
					return true
				})
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
