package run_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/run"
)

// TestRunCrashSite: a NULL-deref crasher's run verdict shows the faulting
// line, the NULL local and the fault address, from its real core read by
// real gdb, in the text and the structured result.
func TestRunCrashSite(t *testing.T) {
	c := mcptest.Connect(t, nil)
	r := c.Call("run", map[string]any{"program": crashers.Build(t, "nullderef"), "cwd": t.TempDir()})
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "CRASHED (SIGSEGV) in total at nullderef.c:13") {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	for _, want := range []string{
		"crash site: total at nullderef.c:13 (frame #0)\n",
		"  >   13 | \tsum += n->value;\n",
		"    12 | \tconst struct node *n = head->next;\n",
		"  locals: sum = 1, n = 0x0\n",
		"  fault address 0x0: n = 0x0\n",
	} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, r.Text)
		}
	}
	var out run.RunOutput
	r.Decode(t, &out)
	s := out.CrashSite
	if s == nil || s.FaultAddr != "0x0" || s.Frame != 0 || len(s.Locals) != 2 || s.Locals[1].Name != "n" || !s.Locals[1].NearFault {
		t.Fatalf("crash_site %+v", s)
	}
	if len(s.Source) != 7 || !s.Source[3].Current || s.Source[3].Line != 13 {
		t.Errorf("source %+v", s.Source)
	}
}

// TestRunPanicSite: a Go nil-map panic and a Rust index-out-of-bounds
// panic (no core: the trace is in the output) show their first project
// frame's source with the panicking line marked.
func TestRunPanicSite(t *testing.T) {
	c := mcptest.Connect(t, nil)
	for _, tc := range []struct{ prog, verdict, site, line string }{
		{"gonilmap", "CRASHED (Go panic", "crash site: main.main at ", `  >    7 | 	m["k"] = 1`},
		{"rustpanic", "CRASHED (Rust panic", "crash site: ", `  >    4 |     println!("{}", v[i]);`},
	} {
		t.Run(tc.prog, func(t *testing.T) {
			exe := crashers.Build(t, tc.prog)
			// crashers builds in exe+".d", where its source stays: the
			// project a relative path in a Rust panic is read from.
			r := c.Call("run", map[string]any{"program": exe, "cwd": t.TempDir(), "project_dir": exe + ".d"})
			if !strings.HasPrefix(r.FirstLine(), tc.verdict) {
				t.Fatalf("verdict %q\n%s", r.FirstLine(), r.Text)
			}
			if !strings.Contains(r.Text, tc.site) || !strings.Contains(r.Text, tc.line+"\n") {
				t.Errorf("text lacks %q and %q:\n%s", tc.site, tc.line, r.Text)
			}
			var out run.RunOutput
			r.Decode(t, &out)
			s := out.CrashSite
			if s == nil || s.Frame != -1 || filepath.Base(s.Path) != crashers.Source(tc.prog) || len(s.Source) == 0 {
				t.Fatalf("crash_site %+v", s)
			}
		})
	}
}

// TestRunCallers: a hash table's grow hands list_insert the NULL past its
// last bucket; `run` shows, after list_insert's site, the frame that
// computed it (table_grow: its call line, its locals, that node is its
// t->slots[i]), in the text and the structured result. A NULL read in
// main alone shows no caller; a stack overflow thousands of frames deep
// shows at most three.
func TestRunCallers(t *testing.T) {
	c := mcptest.Connect(t, nil)
	exe := crashers.Build(t, "hashgrow")
	r := c.Call("run", map[string]any{"program": exe, "cwd": t.TempDir()})
	if !strings.HasPrefix(r.FirstLine(), "CRASHED (SIGSEGV) in list_insert at hashgrow.c:23") {
		t.Fatalf("verdict %q\n%s", r.FirstLine(), r.Text)
	}
	want := "  fault address 0x8: node = 0x0\n" +
		"  `node` is frame #1's `t->slots[i]`\n" +
		"called from: table_grow at hashgrow.c:53 (frame #1)\n" +
		"      52 | \t\t\telse\n" +
		"  >   53 | \t\t\t\tlist_insert(t->slots[i], e->key);\n" +
		"      54 | \t\t}\n"
	if !strings.Contains(r.Text, want) || !regexp.MustCompile(`\n  locals: i = 8, e = 0x[0-9a-f]+, b = 1, old = 0x[0-9a-f]+, old_size = 4\n`).MatchString(r.Text) {
		t.Errorf("text lacks the caller %q and its locals:\n%s", want, r.Text)
	}
	var out run.RunOutput
	r.Decode(t, &out)
	s := out.CrashSite
	if s == nil || len(s.Callers) != 1 {
		t.Fatalf("crash_site %+v", s)
	}
	if cl := s.Callers[0]; cl.Frame != 1 || cl.Function != "table_grow" || cl.Line != 53 || cl.Param != "node" || cl.Expr != "t->slots[i]" ||
		len(cl.Source) != 3 || !cl.Source[1].Current || len(cl.Locals) != 5 || cl.Locals[0].Name != "i" || cl.Locals[0].Value != "8" {
		t.Errorf("caller %+v", cl)
	}

	for _, tc := range []struct {
		prog  string
		args  []string
		most  int
		first string
	}{{"hashgrow", []string{"main"}, 0, "CRASHED (SIGSEGV) in main at hashgrow.c:68"}, {"stackoverflow", nil, 3, "CRASHED (SIGSEGV"}} {
		r := c.Call("run", map[string]any{"program": crashers.Build(t, tc.prog), "args": tc.args, "cwd": t.TempDir()})
		var out run.RunOutput
		r.Decode(t, &out)
		if !strings.HasPrefix(r.FirstLine(), tc.first) || out.CrashSite == nil || len(out.CrashSite.Callers) > tc.most ||
			strings.Count(r.Text, "called from: ") != len(out.CrashSite.Callers) {
			t.Errorf("%s %v: at most %d callers; verdict %q, site %+v\n%s", tc.prog, tc.args, tc.most, r.FirstLine(), out.CrashSite, r.Text)
		}
	}
}
