package coredump

import (
	"context"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/crashsite"
)

// gdbSite backtraces a real core of a crashers program with gdb and
// returns its crash site, failing when there is none.
func gdbSite(t *testing.T, name string, args ...string) (*Trace, *crashsite.Site) {
	t.Helper()
	needTool(t, "gdb", "gdb")
	c, core := realCore(t, name, args...)
	tr, err := Backtrace(context.Background(), c.Exe, core, BacktraceOptions{Debugger: "gdb"})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Site == nil {
		t.Fatalf("no crash site; frames %+v", tr.Frames)
	}
	return tr, tr.Site
}

// TestCallersReal: a hash table's grow hands list_insert the NULL past
// its last bucket. The site is list_insert with node = 0x0; the caller
// that computed the bucket, table_grow, follows with its call line, its
// locals (the index one past the end) and the sentence that node is its
// t->slots[i]; main above it is not shown: table_grow computed the value.
func TestCallersReal(t *testing.T) {
	_, s := gdbSite(t, "hashgrow")
	if s.Function != "list_insert" || s.Line != 23 || s.FaultAddr != "0x8" {
		t.Fatalf("site %s:%d fault %s", s.Function, s.Line, s.FaultAddr)
	}
	if len(s.Callers) != 1 {
		t.Fatalf("%d callers, want 1: %+v", len(s.Callers), s.Callers)
	}
	c := s.Callers[0]
	if c.Index != 1 || c.Function != "table_grow" || c.File != "hashgrow.c" || c.Line != 53 {
		t.Errorf("caller #%d %s at %s:%d, want #1 table_grow at hashgrow.c:53", c.Index, c.Function, c.File, c.Line)
	}
	if len(c.Source) != 3 || !c.Source[1].Current || strings.TrimSpace(c.Source[1].Text) != "list_insert(t->slots[i], e->key);" {
		t.Errorf("caller's source %+v", c.Source)
	}
	if i := find(c.Locals, "i"); i == nil || i.Value != "8" {
		t.Errorf("caller's local i = %+v, want 8; locals %+v", i, c.Locals)
	}
	if tp := find(c.Args, "t"); tp == nil || !strings.HasPrefix(tp.Value, "0x") {
		t.Errorf("caller's argument t = %+v; args %+v", tp, c.Args)
	}
	if c.Param != "node" || c.Expr != "t->slots[i]" {
		t.Errorf("passed %q = %q, want node = t->slots[i]", c.Param, c.Expr)
	}
	var b strings.Builder
	s.WriteText(&b)
	for _, want := range []string{
		"  fault address 0x8: node = 0x0\n  `node` is frame #1's `t->slots[i]`\ncalled from: table_grow at hashgrow.c:53 (frame #1)\n",
		"  >   53 | \t\t\t\tlist_insert(t->slots[i], e->key);\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// TestCallersChain: through bucket_add, which passes its own argument on,
// the walk follows node to bucket_add's bucket, then to table_grow's
// t->slots[i], and stops there.
func TestCallersChain(t *testing.T) {
	_, s := gdbSite(t, "hashgrow", "wrapped")
	var got []string
	for _, c := range s.Callers {
		got = append(got, strings.Join([]string{c.Function, c.Param, c.Expr}, " "))
	}
	want := "bucket_add node bucket; table_grow bucket t->slots[i]"
	if strings.Join(got, "; ") != want || s.Callers[0].Line != 29 || s.Callers[1].Line != 51 {
		t.Errorf("callers %q, want %q: %+v", strings.Join(got, "; "), want, s.Callers)
	}
}

// TestCallersNone: a NULL read in main (no caller in the project) and a
// NULL local total computed itself show frame #0 alone, as before.
func TestCallersNone(t *testing.T) {
	for _, tc := range []struct {
		name, fn string
		args     []string
	}{{"hashgrow", "main", []string{"main"}}, {"nullderef", "total", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := gdbSite(t, tc.name, tc.args...)
			if s.Function != tc.fn || s.Index != 0 || len(s.Callers) != 0 {
				t.Errorf("site %s #%d, callers %+v", s.Function, s.Index, s.Callers)
			}
		})
	}
}

// TestCallersBoundedDeep: a stack overflow thousands of frames deep shows
// at most crashsite.MaxCallers callers, each bounded.
func TestCallersBoundedDeep(t *testing.T) {
	tr, s := gdbSite(t, "stackoverflow")
	if len(tr.Frames) < 1000 {
		t.Fatalf("%d frames: not a deep stack", len(tr.Frames))
	}
	if len(s.Callers) == 0 || len(s.Callers) > crashsite.MaxCallers {
		t.Fatalf("%d callers, want 1 to %d", len(s.Callers), crashsite.MaxCallers)
	}
	for _, c := range s.Callers {
		if c.Function != "recurse" || len(c.Source) > 2*crashsite.CallerContext+1 || len(c.Args)+len(c.Locals) > crashsite.MaxCallerVars {
			t.Errorf("caller %+v", c)
		}
	}
}

// TestCallersLLDB: lldb's batch run gives the caller with its call line
// and locals; a core's stop there names no fault address, so which
// argument faulted is not known and no sentence says it.
func TestCallersLLDB(t *testing.T) {
	needLLDB(t)
	c, core := realCore(t, "hashgrow")
	tr, err := Backtrace(context.Background(), c.Exe, core, BacktraceOptions{Debugger: "lldb"})
	if err != nil {
		t.Fatal(err)
	}
	s := tr.Site
	if s == nil || len(s.Callers) == 0 || len(s.Callers) > crashsite.MaxCallers {
		t.Fatalf("site %+v", s)
	}
	first := s.Callers[0]
	if first.Function != "table_grow" || first.Line != 53 || find(first.Locals, "i") == nil || first.Param != "" {
		t.Errorf("first caller %+v", first)
	}
}
