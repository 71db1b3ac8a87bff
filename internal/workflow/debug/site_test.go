package debug_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/debug"
)

// TestCrashSiteWhileDebugging: a session stopped by a real SIGSEGV shows
// the crash site through each backend: the faulting line, the NULL local
// and the fault address the stop names.
func TestCrashSiteWhileDebugging(t *testing.T) {
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			r := c.Call("debug_attach", map[string]any{"program": prog(t), "args": []string{"crash"}, "backend": backend.name})
			if strings.HasPrefix(r.FirstLine(), "RUNNING") {
				r = c.Call("debug_continue", map[string]any{"wait_s": 30})
			}
			if !strings.HasPrefix(r.FirstLine(), "CRASHED (SIGSEGV) in main at prog.c:17") {
				t.Fatalf("attach:\n%s", r.Text)
			}
			wants := []string{"crash site: main at ", "  fault address 0x0: p = 0x0000000000000000\n"}
			if backend.name == "dap" {
				// lldb's command line names the file without its directory,
				// which is not the program's: its source is not found.
				wants = append(wants, "  >   17 | \t\t*p = total; /* line 17: SIGSEGV */\n")
			}
			for _, want := range wants {
				if !strings.Contains(r.Text, want) {
					t.Errorf("text lacks %q:\n%s", want, r.Text)
				}
			}
			var out debug.StopOutput
			r.Decode(t, &out)
			s := out.CrashSite
			if s == nil || s.Line != 17 || len(s.Callers) != 0 {
				t.Fatalf("crash_site %+v (main has no caller in the program)", s)
			}
			var total string
			var near []string
			for _, v := range s.Locals {
				if v.Name == "total" {
					total = v.Value
				}
				if v.NearFault {
					near = append(near, v.Name)
				}
			}
			if total != "10" || strings.Join(near, ",") != "p" || s.FaultAddr != "0x0" {
				t.Errorf("local total %q (want 10), beside the fault %v (want p), fault %q; locals %+v", total, near, s.FaultAddr, s.Locals)
			}
		})
	}
}

// TestCallersOfCore: debug_attach on a real core of a hash table whose
// grow hands list_insert the NULL past its last bucket shows, through each
// backend, the frame above the crash site in the program's code with its
// call line and its locals (the index one past the end), in the text and
// the structured result. Neither backend says which argument faulted (a
// core's stop names no fault address to lldb, lldb-dap lists arguments
// among the locals), so no caller is matched to it: the bound holds.
func TestCallersOfCore(t *testing.T) {
	exe := crashers.Build(t, "hashgrow")
	dir := t.TempDir()
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{exe}, Dir: dir, CoreDumps: true})
	if err != nil || !res.CoreDumped {
		t.Skipf("no core dumped here (core_pattern): %v %+v", err, res)
	}
	core := filepath.Join(dir, "core")
	if _, err := os.Stat(core); err != nil {
		t.Skipf("core not in the cwd (core_pattern is not \"core\"): %v", err)
	}
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			r := c.Call("debug_attach", map[string]any{"core": core, "program": exe, "backend": backend.name})
			if !strings.HasPrefix(r.FirstLine(), "CRASHED (SIGSEGV) in list_insert at hashgrow.c:23") {
				t.Fatalf("attach:\n%s", r.Text)
			}
			wants := []string{"hashgrow.c:53 (frame #1)\n", "called from: table_grow at "}
			if backend.name == "dap" {
				// lldb's command line names the file without its directory:
				// its source is not found (see TestCrashSiteWhileDebugging).
				wants = append(wants, "  >   53 | \t\t\t\tlist_insert(t->slots[i], e->key);\n")
			}
			for _, want := range wants {
				if !strings.Contains(r.Text, want) {
					t.Errorf("text lacks %q:\n%s", want, r.Text)
				}
			}
			var out debug.StopOutput
			r.Decode(t, &out)
			s := out.CrashSite
			if s == nil || len(s.Callers) == 0 || len(s.Callers) > 3 {
				t.Fatalf("crash_site %+v", s)
			}
			first, i := s.Callers[0], ""
			for _, v := range first.Locals {
				if v.Name == "i" {
					i = v.Value
				}
			}
			if first.Frame != 1 || first.Function != "table_grow" || first.Line != 53 || i != "8" {
				t.Errorf("first caller %+v: want table_grow at line 53, local i = 8", first)
			}
		})
	}
}
