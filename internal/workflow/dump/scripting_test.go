package dump_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// The engines' own scripting and host commands run: each command below
// creates its marker file through the real server. Only a command that
// would make the engine read its own input is refused, saying so, and the
// engine that refused it is the one that runs the next command.
func TestEngineScriptingRuns(t *testing.T) {
	need(t, "gdb", "gdb")
	exe, core := makeCore(t, "segv")
	c := mcptest.Connect(t, nil)
	if open := c.Call("dump_open", map[string]any{"core": core, "program": exe}); open.IsError {
		t.Fatalf("dump_open:\n%s", open.Text)
	}
	dir := t.TempDir()
	runs := []struct{ name, tool, pkg, command string }{
		{"gdb python", "gdb", "gdb", "python import os; os.system('touch %s')"},
		{"gdb shell", "gdb", "gdb", "shell touch %s"},
		{"gdb !", "gdb", "gdb", "!touch %s"},
		{"gdb pipe", "gdb", "gdb", "pipe bt | tee %s"},
		{"lldb script", "lldb-16", "lldb-16", "lldb: script import os; os.system('touch %s')"},
		{"lldb platform shell", "lldb-16", "lldb-16", "lldb: platform shell touch %s"},
		{"drgn os.system", "drgn", "python3-drgn", "drgn: import os; os.system('touch %s')"},
	}
	for i, tt := range runs {
		t.Run(tt.name, func(t *testing.T) {
			need(t, tt.tool, tt.pkg)
			marker := filepath.Join(dir, fmt.Sprint("marker", i))
			r := c.Call("dump_command", map[string]any{"command": fmt.Sprintf(tt.command, marker)})
			if r.IsError || r.Outcome != "ok" {
				t.Fatalf("outcome %s:\n%s", r.Outcome, r.Text)
			}
			if _, err := os.Stat(marker); err != nil {
				t.Errorf("the command ran but made no marker: %v\n%s", err, r.Text)
			}
		})
	}
	refused := []struct{ name, tool, command, want string }{
		{"gdb shell alone", "gdb", "shell", `"shell" makes gdb read the lines after it as an interactive shell`},
		{"gdb ! alone", "gdb", "!", "as an interactive shell"},
		{"gdb shell abbreviated", "gdb", "she", "as an interactive shell"},
		{"gdb python prompt", "gdb", "pi", "as an interactive Python prompt"},
		{"lldb script alone", "lldb-16", "lldb: script", `"script" makes lldb read the lines after it as an interactive Python prompt`},
		{"lldb expression editor", "lldb-16", "lldb: expr", "as the expression editor"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			need(t, tt.tool, tt.tool)
			r := c.Call("dump_command", map[string]any{"command": tt.command})
			if r.Outcome != "usage_error" || !strings.Contains(r.Text, tt.want) {
				t.Errorf("outcome %s:\n%s", r.Outcome, r.Text)
			}
		})
	}
	// No refusal cost an engine: no restart note on the next commands.
	for _, command := range []string{"info frame", "lldb: frame info"} {
		r := c.Call("dump_command", map[string]any{"command": command, "force": true})
		var o wire.DumpCommand
		r.Decode(t, &o)
		if r.IsError || len(o.Notes) != 0 {
			t.Errorf("%q after the refusals: %+v\n%s", command, o, r.Text)
		}
	}
}
