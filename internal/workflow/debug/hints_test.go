package debug_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
)

// An evaluation that fails the common ways says what to try, in the
// debugger's own terms.
func TestEvaluateErrorsSayWhatToTry(t *testing.T) {
	for _, backend := range []struct{ name, tool, pkg string }{
		{"dap", "lldb-vscode-16", "lldb-16"},
		{"lldb", "lldb-16", "lldb-16"},
	} {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			if r := c.Call("debug_attach", map[string]any{"program": prog(t), "breakpoints": []string{"add"}, "backend": backend.name}); r.IsError {
				t.Fatalf("attach:\n%s", r.Text)
			}
			unknown := c.Call("debug_evaluate", map[string]any{"expression": "nosuch"})
			if !unknown.IsError || !strings.Contains(unknown.Text, "debug_variables lists the names") {
				t.Errorf("an unknown name:\n%s", unknown.Text)
			}
			unreadable := c.Call("debug_evaluate", map[string]any{"expression": "*(int *)0"})
			if !unreadable.IsError || !strings.Contains(unreadable.Text, `debug_command "frame variable *(int *)0"`) {
				t.Errorf("unreadable memory:\n%s", unreadable.Text)
			}
		})
	}
}

// Under dlv, an unknown name says what to try, and a breakpoint's relative
// file:line is found in the program's working directory (dlv itself
// matches full paths only).
func TestDlvHintsAndRelativeBreakpoint(t *testing.T) {
	needTool(t, "dlv", "go install github.com/go-delve/delve/cmd/dlv")
	bin := filepath.Join(t.TempDir(), "goprog")
	if out, err := exec.Command("go", "build", "-gcflags=all=-N -l", "-o", bin, "./testdata/goprog").CombinedOutput(); err != nil {
		t.Fatalf("building: %v\n%s", err, out)
	}
	src, _ := filepath.Abs("testdata/goprog")
	c := mcptest.Connect(t, nil)
	r := c.Call("debug_attach", map[string]any{"program": bin, "cwd": src, "breakpoints": []string{"main.go:10"}})
	if r.IsError || !strings.HasPrefix(r.FirstLine(), "STOPPED at breakpoint 1 in main.add at main.go:10") {
		t.Fatalf("attach with a relative breakpoint:\n%s", r.Text)
	}
	if bp := c.Call("debug_breakpoint_add", map[string]any{"location": "main.go:11"}); bp.IsError || strings.Contains(bp.Text, "unverified") {
		t.Errorf("a relative breakpoint added later:\n%s", bp.Text)
	}
	if e := c.Call("debug_evaluate", map[string]any{"expression": "nosuch"}); !e.IsError || !strings.Contains(e.Text, "debug_variables lists the names") {
		t.Errorf("an unknown name:\n%s", e.Text)
	}
}
