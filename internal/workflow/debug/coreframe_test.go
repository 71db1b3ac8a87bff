package debug_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
)

// calleeCrash crashes in boom, called from main, whose locals are known.
const calleeCrash = `static int boom(int *p) { return *p; }
int main(int argc, char **argv) {
	int local_in_main = 42;
	int *q = argc > 5 ? &local_in_main : 0;
	return boom(q) + local_in_main;
}
`

// The acceptance of issue 45: on a core, debug_variables --frame 1 (the
// #1 debug_stack prints) shows main's locals, and debug_evaluate reads one
// there; a frame the stack does not have is an error naming the frames.
func TestCoreFrameByIndex(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: apt-get install gcc")
	}
	dir := t.TempDir()
	src, exe := filepath.Join(dir, "callee.c"), filepath.Join(dir, "callee")
	if err := os.WriteFile(src, []byte(calleeCrash), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-g", "-O0", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{exe}, Dir: dir, CoreDumps: true, Timeout: time.Minute})
	cores, _ := filepath.Glob(filepath.Join(dir, "core*"))
	if err != nil || !res.CoreDumped || len(cores) != 1 {
		t.Fatalf("no core in the directory (core_pattern must be \"core\"): %+v %v", res, err)
	}
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			if r := c.Call("debug_attach", map[string]any{"core": cores[0], "program": exe, "backend": backend.name}); r.IsError || !strings.Contains(r.FirstLine(), "in boom") {
				t.Fatalf("the core:\n%s", r.Text)
			}
			if r := c.Call("debug_stack", nil); r.IsError || !strings.Contains(r.Text, "#1 main") {
				t.Fatalf("the stack:\n%s", r.Text)
			}
			r := c.Call("debug_variables", map[string]any{"frame": 1})
			if r.IsError || !strings.Contains(r.Text, "local_in_main") || !strings.Contains(r.Text, "42") {
				t.Errorf("frame 1 (main's locals):\n%s", r.Text)
			}
			if r := c.Call("debug_evaluate", map[string]any{"expression": "local_in_main + 1", "frame": 1}); r.IsError || !strings.Contains(r.Text, "43") {
				t.Errorf("an expression in frame 1 of a core:\n%s", r.Text)
			}
			r = c.Call("debug_variables", map[string]any{"frame": 7})
			if !r.IsError || !strings.Contains(r.Text, "no frame #7") {
				t.Errorf("frame 7 (no such frame):\n%s", r.Text)
			}
		})
	}
}
