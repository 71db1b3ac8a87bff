package coredump

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/crashsite"
)

// TestCrashSiteReal: gdb's one run on a real NULL-deref core gives the
// crash site: the faulting line marked in the source, the NULL local beside
// the fault address 0x0, the arguments; a backtrace-only run gives none.
func TestCrashSiteReal(t *testing.T) {
	needTool(t, "gdb", "gdb")
	c, core := realCore(t, "nullderef")
	tr, err := Backtrace(context.Background(), c.Exe, core, BacktraceOptions{Debugger: "gdb"})
	if err != nil {
		t.Fatal(err)
	}
	s := tr.Site
	if s == nil {
		t.Fatalf("no crash site; trace %+v", tr)
	}
	if s.Function != "total" || filepath.Base(s.File) != "nullderef.c" || s.Line != 13 {
		t.Errorf("site at %s %s:%d, want total nullderef.c:13", s.Function, s.File, s.Line)
	}
	if cur := current(s.Source); cur == nil || !strings.Contains(cur.Text, "sum += n->value;") {
		t.Errorf("faulting line %+v; source %+v", cur, s.Source)
	}
	if len(s.Source) != 2*crashsite.SourceContext+1 {
		t.Errorf("%d source lines, want %d: %+v", len(s.Source), 2*crashsite.SourceContext+1, s.Source)
	}
	if s.FaultAddr != "0x0" {
		t.Errorf("fault address %q, want 0x0", s.FaultAddr)
	}
	n := find(s.Locals, "n")
	if n == nil || n.Value != "0x0" || !n.NearFault {
		t.Errorf("local n = %+v, want 0x0 beside the fault; locals %+v", n, s.Locals)
	}
	if sum := find(s.Locals, "sum"); sum == nil || sum.Value != "1" || sum.NearFault {
		t.Errorf("local sum = %+v, want 1; locals %+v", sum, s.Locals)
	}
	if label := find(s.Args, "label"); label == nil || !strings.Contains(label.Value, `"list"`) {
		t.Errorf("argument label = %+v; args %+v", label, s.Args)
	}
	plain, err := Backtrace(context.Background(), c.Exe, core, BacktraceOptions{Debugger: "gdb", NoSite: true})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Site != nil || len(plain.Frames) != len(tr.Frames) {
		t.Errorf("backtrace only: site %+v, %d frames (with the site %d)", plain.Site, len(plain.Frames), len(tr.Frames))
	}
}

func current(lines []crashsite.SourceLine) *crashsite.SourceLine {
	for i := range lines {
		if lines[i].Current {
			return &lines[i]
		}
	}
	return nil
}

func find(vars []crashsite.Var, name string) *crashsite.Var {
	for i := range vars {
		if vars[i].Name == name {
			return &vars[i]
		}
	}
	return nil
}

// TestCrashSiteLLDB: lldb's batch run gives the same site, through its
// script, but no fault address (a core's stop does not name one there).
func TestCrashSiteLLDB(t *testing.T) {
	needLLDB(t)
	c, core := realCore(t, "nullderef")
	tr, err := Backtrace(context.Background(), c.Exe, core, BacktraceOptions{Debugger: "lldb"})
	if err != nil {
		t.Fatal(err)
	}
	s := tr.Site
	if s == nil || s.Function != "total" || s.Line != 13 {
		t.Fatalf("site %+v; frames %+v", s, tr.Frames)
	}
	if cur := current(s.Source); cur == nil || !strings.Contains(cur.Text, "sum += n->value;") {
		t.Errorf("faulting line %+v; source %+v", cur, s.Source)
	}
	if n := find(s.Locals, "n"); n == nil || n.Value != "0x0000000000000000" {
		t.Errorf("local n = %+v; locals %+v", n, s.Locals)
	}
	// lldb-16 reads no string from a core's read-only data: the pointer only.
	if label := find(s.Args, "label"); label == nil || !strings.HasPrefix(label.Value, "0x") {
		t.Errorf("argument label = %+v; args %+v", label, s.Args)
	}
}
