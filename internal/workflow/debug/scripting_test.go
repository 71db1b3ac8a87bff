package debug_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
)

// debug_command runs the debugger's own scripting and host commands (each
// below creates its marker file); a command that would make the debugger
// read its own input, which carries triage's next commands (or, for an
// adapter, the protocol), is refused saying so, and the session goes on.
func TestDebugCommandScripting(t *testing.T) {
	for _, backend := range []struct{ name, tool string }{{"dap", "lldb-vscode-16"}, {"lldb", "lldb-16"}} {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, "lldb-16")
			c := mcptest.Connect(t, nil)
			if r := c.Call("debug_attach", map[string]any{"program": prog(t), "breakpoints": []string{"add"}, "backend": backend.name}); r.IsError {
				t.Fatal(r.Text)
			}
			dir := t.TempDir()
			for i, command := range []string{"script import os; os.system('touch %s')", "platform shell touch %s"} {
				marker := filepath.Join(dir, fmt.Sprint("marker", i))
				r := c.Call("debug_command", map[string]any{"command": fmt.Sprintf(command, marker)})
				if _, err := os.Stat(marker); r.IsError || err != nil {
					t.Errorf("%q: marker %v:\n%s", command, err, r.Text)
				}
			}
			for _, tt := range []struct{ command, want string }{
				{"script", `"script" would start an interactive Python prompt on lldb's input`},
				{"sc", "an interactive Python prompt"},
				{"expr", "the expression editor"},
			} {
				if r := c.Call("debug_command", map[string]any{"command": tt.command}); r.Outcome != "usage_error" || !strings.Contains(r.Text, tt.want) {
					t.Errorf("%q: outcome %s:\n%s", tt.command, r.Outcome, r.Text)
				}
			}
			if r := c.Call("debug_stack", nil); r.IsError || !strings.Contains(r.Text, "add") {
				t.Errorf("the session after the refusals:\n%s", r.Text)
			}
		})
	}
}
