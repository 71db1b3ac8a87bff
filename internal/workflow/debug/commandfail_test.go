package debug_test

import (
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
)

// A raw command the debugger refuses (an undeclared identifier) is a
// failed call, its error line first, not a success whose text is an error
// (issue 45); one it runs stays a success.
func TestDebugCommandErrorIsFailure(t *testing.T) {
	for _, backend := range []struct{ name, tool string }{{"dap", "lldb-vscode-16"}, {"lldb", "lldb-16"}} {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, "lldb-16")
			c := mcptest.Connect(t, nil)
			if r := c.Call("debug_attach", map[string]any{"program": prog(t), "breakpoints": []string{"add"}, "backend": backend.name}); r.IsError {
				t.Fatal(r.Text)
			}
			r := c.Call("debug_command", map[string]any{"command": "p nosuch"})
			if r.Outcome != "failed" || !strings.HasPrefix(r.Text, `COMMAND FAILED "p nosuch"`) || !strings.Contains(r.Text, "undeclared identifier 'nosuch'") {
				t.Errorf("outcome %s:\n%s", r.Outcome, r.Text)
			}
			if r := c.Call("debug_command", map[string]any{"command": "frame info"}); r.Outcome != "ok" || !strings.HasPrefix(r.Text, `COMMAND "frame info"`) {
				t.Errorf("a command that ran: outcome %s:\n%s", r.Outcome, r.Text)
			}
		})
	}
}
