package debug_test

import (
	"strings"
	"testing"

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
			if s == nil || s.Line != 17 {
				t.Fatalf("crash_site %+v", s)
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
