package run_test

import (
	"path/filepath"
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
