package crashsite

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPassedExpr: the expression a call line passes for a parameter, and
// silence whenever the line does not say it surely.
func TestPassedExpr(t *testing.T) {
	long := "f(" + strings.Repeat("x", MaxExpr+1) + ");"
	for _, tc := range []struct {
		line, callee string
		params       []string
		param, want  string
	}{
		{"\t\t\tlist_insert(t->slots[i], e->key);", "list_insert", []string{"node", "key"}, "node", "t->slots[i]"},
		{"\t\t\tlist_insert(t->slots[i], e->key);", "list_insert", []string{"node", "key"}, "key", "e->key"},
		{"x = f(g(a, b), c[h(1, 2)]);", "f", []string{"p", "q"}, "p", "g(a, b)"},
		{"x = f(g(a, b), c[h(1, 2)]);", "f", []string{"p", "q"}, "q", "c[h(1, 2)]"},
		{"f (a , b)", "f", []string{"p", "q"}, "p", "a"},
		{`f("a,)", b)`, "f", []string{"p", "q"}, "p", `"a,)"`},
		{`f("a,)", b)`, "f", []string{"p", "q"}, "q", "b"},
		{`f(',', "\"(", x)`, "f", []string{"c", "s", "x"}, "x", "x"},
		{"return ns_f(&s, { 1, 2 });", "ns::Klass::ns_f(int*, pair) const", []string{"p", "q"}, "q", "{ 1, 2 }"},
		{"obj->m(a);", "ns::K::m(int)", []string{"this", "p"}, "p", "a"},
		{"self.step(n)", "crate::m::Walker::step", []string{"self", "n"}, "n", "n"},
		{`	write("x")`, "main.write", []string{"k"}, "k", `"x"`},
		// Not sure, so nothing.
		{"obj->m(a);", "ns::K::m(int)", []string{"this", "p"}, "this", ""},
		{"f(a) + f(b)", "f", []string{"p"}, "p", ""},
		{"f(a); // then f(b)", "f", []string{"p"}, "p", ""},
		{"my_f(a)", "f", []string{"p"}, "p", ""},
		{"f_2(a)", "f", []string{"p"}, "p", ""},
		{"f(a,", "f", []string{"p", "q"}, "p", ""},
		{`f("a, b)`, "f", []string{"p"}, "p", ""},
		{"f(a)", "f", []string{"p", "q"}, "p", ""},
		{`printf("%d\n", x)`, "printf", []string{"fmt"}, "fmt", ""},
		{"f()", "f", nil, "p", ""},
		{"f(, b)", "f", []string{"p", "q"}, "p", ""},
		{"g(a)", "f", []string{"p"}, "p", ""},
		{"f!(a)", "f", []string{"p"}, "p", ""},
		{"call(a)", "{closure#0}", []string{"p"}, "p", ""},
		{"f(a)", "f", []string{"p"}, "q", ""},
		{long, "f", []string{"p"}, "p", ""},
		{"", "f", []string{"p"}, "p", ""},
	} {
		t.Run(tc.line+"/"+tc.param, func(t *testing.T) {
			if got := passedExpr(tc.line, tc.callee, tc.params, tc.param); got != tc.want {
				t.Errorf("passedExpr(%q, %q, %v, %q) = %q, want %q", tc.line, tc.callee, tc.params, tc.param, got, tc.want)
			}
		})
	}
}

// callerFixture writes t.c, whose lines are "line N" but for the calls
// given by line number, and returns its directory.
func callerFixture(t *testing.T, calls map[int]string) string {
	t.Helper()
	var src strings.Builder
	for n := 1; n <= 30; n++ {
		if c, ok := calls[n]; ok {
			src.WriteString("\t" + c + "\n")
			continue
		}
		fmt.Fprintf(&src, "line %d\n", n)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.c"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// frameAt is a project frame at t.c:line whose variables are vars; read
// counts the frames whose variables were asked for.
func frameAt(index int, fn string, line int, read *int, args ...Var) Above {
	return Above{Frame: Frame{Function: fn, File: "t.c", Line: line}, Index: index,
		Vars: func() ([]Var, []Var) { *read++; return args, []Var{{Name: "i", Value: "8"}} }}
}

// faulted is a site at t.c:2 in list_insert(node, key), node beside the
// fault when near.
func faulted(near bool) *Site {
	s := &Site{Index: 0, Function: "list_insert", File: "t.c", Line: 2}
	s.SetVars([]Var{{Name: "node", Value: "0x0"}, {Name: "key", Value: "9"}}, []Var{{Name: "n", Value: "0x5555"}})
	if near {
		s.MarkFault(0x8)
	}
	return s
}

// TestAddCallersPassed: the faulting argument is followed through a frame
// that passes its own argument on, to the frame that computed it, where
// the walk stops; each caller has its call line and one line either side.
func TestAddCallersPassed(t *testing.T) {
	dir := callerFixture(t, map[int]string{10: "list_insert(bucket, key);", 20: "bucket_add(t->slots[i], e->key);"})
	read := 0
	s := faulted(true)
	s.AddCallers([]Above{
		frameAt(1, "bucket_add", 10, &read, Var{Name: "bucket", Value: "0x0"}, Var{Name: "key", Value: "9"}),
		frameAt(2, "table_grow", 20, &read, Var{Name: "t", Value: "0x7ffc"}),
		frameAt(3, "main", 25, &read),
	}, dir, dir)
	if len(s.Callers) != 2 || read != 2 {
		t.Fatalf("%d callers (%d read), want 2: %+v", len(s.Callers), read, s.Callers)
	}
	c1, c2 := s.Callers[0], s.Callers[1]
	if c1.Param != "node" || c1.Expr != "bucket" || c2.Param != "bucket" || c2.Expr != "t->slots[i]" {
		t.Errorf("passed: %q=%q, %q=%q", c1.Param, c1.Expr, c2.Param, c2.Expr)
	}
	if len(c2.Source) != 3 || c2.Source[0].Line != 19 || !c2.Source[1].Current || c2.Path != filepath.Join(dir, "t.c") {
		t.Errorf("caller's source %s %+v", c2.Path, c2.Source)
	}
	var b strings.Builder
	s.WriteText(&b)
	want := "  `node` is frame #1's `bucket`\n" +
		"called from: bucket_add at t.c:10 (frame #1)\n" +
		"       9 | line 9\n" +
		"  >   10 | \tlist_insert(bucket, key);\n" +
		"      11 | line 11\n" +
		"  args: bucket = 0x0, key = 9\n" +
		"  locals: i = 8\n" +
		"  `bucket` is frame #2's `t->slots[i]`\n" +
		"called from: table_grow at t.c:20 (frame #2)\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("text lacks\n%s\nin\n%s", want, b.String())
	}
}

// TestAddCallersNone: a faulting local was computed by the site's own
// frame, and a site with no project frame above has no callers; neither
// asks for any frame's variables.
func TestAddCallersNone(t *testing.T) {
	dir := callerFixture(t, map[int]string{10: "list_insert(p, 1);"})
	read := 0
	s := &Site{Index: 0, Function: "list_insert", File: "t.c", Line: 2}
	s.SetVars([]Var{{Name: "node", Value: "0x5555"}}, []Var{{Name: "n", Value: "0x0"}})
	s.MarkFault(0x0)
	s.AddCallers([]Above{frameAt(1, "main", 10, &read)}, dir, dir)
	if len(s.Callers) != 0 || read != 0 {
		t.Errorf("a local's fault: callers %+v, %d read", s.Callers, read)
	}
	s = faulted(true)
	libc := Above{Frame: Frame{Function: "__libc_start_call_main", File: "../sysdeps/nptl/libc_start_call_main.h", Line: 58}, Index: 1}
	s.AddCallers([]Above{libc, {Frame: Frame{Function: "_start"}, Index: 2}}, dir, dir)
	if len(s.Callers) != 0 {
		t.Errorf("no project caller: %+v", s.Callers)
	}
	var b strings.Builder
	s.WriteText(&b)
	if strings.Contains(b.String(), "called from") || strings.Contains(b.String(), "` is frame #") {
		t.Errorf("text:\n%s", b.String())
	}
}

// TestAddCallersBounded: with the faulting value's provenance unknown, the
// next MaxCallers project frames are shown, runtime frames and frames
// without source skipped, each with at most MaxCallerVars variables; a
// call read across a skipped frame is not matched.
func TestAddCallersBounded(t *testing.T) {
	dir := callerFixture(t, map[int]string{10: "list_insert(q, 1);"})
	read := 0
	var many []Var
	for i := range MaxCallerVars + 5 {
		many = append(many, Var{Name: fmt.Sprintf("v%d", i), Value: strings.Repeat("x", MaxValue+10)})
	}
	above := []Above{{Frame: Frame{Function: "qsort", Module: "/lib/x86_64-linux-gnu/libc.so.6"}, Index: 1}}
	for i := range 1000 {
		above = append(above, frameAt(2+2*i, "recurse", 10, &read, many...), Above{Frame: Frame{Function: "??"}, Index: 3 + 2*i})
	}
	// A frame listing no arguments (lldb-dap lists them among the locals):
	// its faulting local is not known to be its own.
	noArgs := &Site{Index: 0, Function: "list_insert", File: "t.c", Line: 2}
	noArgs.SetVars(nil, []Var{{Name: "node", Value: "0x0"}})
	noArgs.MarkFault(0x8)
	for _, s := range []*Site{faulted(false), faulted(true), noArgs} {
		read = 0
		s.AddCallers(above, dir, dir)
		if len(s.Callers) != MaxCallers || read != MaxCallers {
			t.Fatalf("%d callers, %d read; want %d", len(s.Callers), read, MaxCallers)
		}
		for _, c := range s.Callers {
			if c.Param != "" || len(c.Args)+len(c.Locals) != MaxCallerVars || c.VarsCut != 6 || len(c.Args[0].Value) > MaxValue {
				t.Errorf("caller %+v", c)
			}
		}
	}
}

// TestAddCallersStops: a caller that passes its own local computed the
// value (the walk stops there); one that passes a name it does not list
// (a global, or variables not read) leaves the origin unknown, and the
// bound applies.
func TestAddCallersStops(t *testing.T) {
	dir := callerFixture(t, map[int]string{10: "list_insert(b, 1);", 20: "list_insert(head, 1);"})
	read := 0
	local := Above{Frame: Frame{Function: "grow", File: "t.c", Line: 10}, Index: 1,
		Vars: func() ([]Var, []Var) { return nil, []Var{{Name: "b", Value: "0x0"}} }}
	s := faulted(true)
	s.AddCallers([]Above{local, frameAt(2, "main", 25, &read)}, dir, dir)
	if len(s.Callers) != 1 || s.Callers[0].Expr != "b" || read != 0 {
		t.Errorf("a local passed: callers %+v, %d read after it", s.Callers, read)
	}
	s = faulted(true)
	s.AddCallers([]Above{frameAt(1, "grow", 20, &read), frameAt(2, "main", 25, &read), frameAt(3, "start", 26, &read), frameAt(4, "x", 27, &read)}, dir, dir)
	if len(s.Callers) != MaxCallers || s.Callers[0].Expr != "head" || s.Callers[1].Param != "" {
		t.Errorf("a global passed: callers %+v", s.Callers)
	}
}
