package coredump

import (
	"context"
	"os"
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

// TestParseGDBSite reads a captured gdb run: the backtrace stays as it was,
// the site's sections give the picked frame's variables, and a source path
// gdb names for another file is not taken for the frame's.
func TestParseGDBSite(t *testing.T) {
	out := strings.Join([]string{
		"Program terminated with signal SIGSEGV, Segmentation fault.",
		"#0  0x00007f in __strlen_avx2 () at ../sysdeps/x86_64/multiarch/strlen-avx2.S:76",
		btMarker,
		"#0  0x00007f in __strlen_avx2 () at ../sysdeps/x86_64/multiarch/strlen-avx2.S:76",
		"#1  0x000055 in name_length (s=0x0) at lib.c:4",
		"#2  0x000056 in main () at main.c:5",
		siteArgsMarker,
		"#1  0x000055 in name_length (s=0x0) at lib.c:4",
		"s = 0x0",
		siteLocalsMarker,
		"#1  0x000055 in name_length (s=0x0) at lib.c:4",
		"No locals.",
		"#2  0x000056 in main () at main.c:5",
		"buf = \"abc\", '\\000' <repeats 60 times>",
		siteSourceMarker,
		"#0  0x00007f in __strlen_avx2 () at ../sysdeps/x86_64/multiarch/strlen-avx2.S:76",
		"Located in /nonexistent/glibc/strlen-avx2.S",
		"#1  0x000055 in name_length (s=0x0) at lib.c:4",
		"Located in /nonexistent/main.c",
		siteFaultMarker,
		"$1 = (void *) 0x0",
		siteEndMarker,
	}, "\n")
	tr, err := ParseGDBBacktrace(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Frames) != 3 || tr.Frames[2].Function != "main" {
		t.Fatalf("frames %+v", tr.Frames)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lib.c"), []byte("a\nb\nc\nreturn strlen(s);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := tr.CrashSite("", dir)
	if s == nil || s.Index != 1 || s.Path != filepath.Join(dir, "lib.c") || len(s.Source) != 4 || !s.Source[3].Current {
		t.Fatalf("site %+v", s)
	}
	if len(s.Args) != 1 || !s.Args[0].NearFault || len(s.Locals) != 0 || s.FaultAddr != "0x0" {
		t.Errorf("args %+v locals %+v fault %q", s.Args, s.Locals, s.FaultAddr)
	}
}
