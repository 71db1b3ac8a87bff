package debug_test

import (
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
)

// A launch that stops on entry says so; debug_continue without wait_s
// waits for the next stop, so the natural next call (debug_stack) works;
// wait_s 0 returns at once with the target running and names the calls
// that wait or pause.
func TestEntryStopAndContinueWaits(t *testing.T) {
	for _, backend := range []struct{ name, tool, pkg string }{
		{"dap", "lldb-vscode-16", "lldb-16"},
		{"lldb", "lldb-16", "lldb-16"},
	} {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			r := c.Call("debug_attach", map[string]any{"program": prog(t), "stop_on_entry": true, "backend": backend.name})
			if r.IsError || r.FirstLine() != "STOPPED at entry in _start" || r.Outcome != "ok" {
				t.Fatalf("attach stopping on entry (outcome %s):\n%s", r.Outcome, r.Text)
			}
			if reason := r.Out["state"].(map[string]any)["last_stop"].(map[string]any)["reason"]; reason != "entry" {
				t.Errorf("stop reason %v, want entry", reason)
			}
			if bp := c.Call("debug_breakpoint_add", map[string]any{"location": "add"}); bp.IsError {
				t.Fatalf("breakpoint:\n%s", bp.Text)
			}
			if r := c.Call("debug_continue", nil); r.IsError || !strings.HasPrefix(r.FirstLine(), "STOPPED at breakpoint 1 in add") {
				t.Fatalf("continue without wait_s:\n%s", r.Text)
			}
			if st := c.Call("debug_stack", nil); st.IsError || !strings.Contains(st.Text, "add at prog.c:5") {
				t.Errorf("stack after continue:\n%s", st.Text)
			}
			if s := c.Call("debug_step", nil); s.IsError || !strings.Contains(s.FirstLine(), "prog.c:6") {
				t.Errorf("step without wait_s:\n%s", s.Text)
			}
			if rm := c.Call("debug_breakpoint_remove", map[string]any{"id": 1}); rm.IsError {
				t.Fatalf("remove:\n%s", rm.Text)
			}
			if end := c.Call("debug_continue", nil); end.FirstLine() != "EXITED (code 3)" {
				t.Errorf("continue to the end:\n%s", end.Text)
			}
		})
	}
}

func TestContinueWaitZeroReturnsAtOnce(t *testing.T) {
	for _, backend := range []struct{ name, tool, pkg string }{
		{"dap", "lldb-vscode-16", "lldb-16"},
		{"lldb", "lldb-16", "lldb-16"},
	} {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			r := c.Call("debug_attach", map[string]any{"program": "sleep", "args": []string{"600"}, "stop_on_entry": true, "backend": backend.name})
			if r.IsError || !strings.HasPrefix(r.FirstLine(), "STOPPED at entry") {
				t.Fatalf("attach:\n%s", r.Text)
			}
			r = c.Call("debug_continue", map[string]any{"wait_s": 0})
			if r.IsError || r.FirstLine() != "RUNNING" || strings.Contains(r.Text, "no stop within") ||
				!strings.Contains(r.Text, "debug_pause") || !strings.Contains(r.Text, `debug_continue {"session_id":"dbg-1","wait_s":30}`) {
				t.Errorf("continue with wait_s 0:\n%s", r.Text)
			}
			if p := c.Call("debug_pause", nil); p.IsError || !strings.HasPrefix(p.FirstLine(), "STOPPED") {
				t.Errorf("pause:\n%s", p.Text)
			}
		})
	}
}
