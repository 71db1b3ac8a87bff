package crashsite

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadSource(t *testing.T) {
	dir := t.TempDir()
	var src strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&src, "line %d%s\n", i, strings.Repeat("x", i*20))
	}
	if err := os.WriteFile(filepath.Join(dir, "a.c"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	path, lines := ReadSource("a.c", 2, "", filepath.Join(dir, "missing"), dir)
	if path != filepath.Join(dir, "a.c") || len(lines) != 5 || lines[0].Line != 1 || !lines[1].Current || lines[4].Line != 5 {
		t.Errorf("around line 2 of %s: %+v", path, lines)
	}
	_, lines = ReadSource(filepath.Join(dir, "a.c"), 20)
	if len(lines) != 4 || !lines[3].Current || len(lines[3].Text) > MaxSourceLine || !strings.HasSuffix(lines[3].Text, "…") {
		t.Errorf("around the last line: %+v", lines)
	}
	if p, lines := ReadSource("a.c", 21, dir); p != "" || lines != nil {
		t.Errorf("past the end: %s %+v", p, lines)
	}
	if p, lines := ReadSource("a.c", 3); p != "" || lines != nil {
		t.Errorf("relative with no directory: %s %+v", p, lines)
	}
}

func TestMarkFault(t *testing.T) {
	s := &Site{}
	s.SetVars([]Var{{Name: "p", Value: "0x0"}, {Name: "q", Value: "(int *) 0x1000"}},
		[]Var{{Name: "n", Value: "NULL"}, {Name: "s", Value: `0x4000 "text"`}, {Name: "i", Value: "0"}, {Name: "far", Value: "0x0"}})
	s.MarkFault(0x8)
	var near []string
	for _, v := range append(s.Args, s.Locals...) {
		if v.NearFault {
			near = append(near, v.Name)
		}
	}
	if s.FaultAddr != "0x8" || strings.Join(near, ",") != "p,n,far" {
		t.Errorf("fault %s, near %v", s.FaultAddr, near)
	}
}

func TestSetVarsBounded(t *testing.T) {
	var args, locals []Var
	for i := range MaxVars {
		args = append(args, Var{Name: fmt.Sprint("a", i), Value: strings.Repeat("v", 1000)})
		locals = append(locals, Var{Name: fmt.Sprint("l", i), Value: "1"})
	}
	s := &Site{}
	s.SetVars(args[:MaxVars-2], locals)
	if len(s.Args) != MaxVars-2 || len(s.Locals) != 2 || s.VarsCut != MaxVars-2 {
		t.Errorf("%d args, %d locals, %d cut", len(s.Args), len(s.Locals), s.VarsCut)
	}
	if v := s.Args[0].Value; len(v) > MaxValue || !strings.HasSuffix(v, "…") {
		t.Errorf("value not cut: %d bytes", len(v))
	}
}
