package debug_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
)

// A stopped program's stack names its other threads, and thread: N picks
// one, as the list gives it or as its position in the list; a thread that
// is not there is refused with the list, not "invalid thread".
func TestStackOfAnotherThread(t *testing.T) {
	needTool(t, "gcc", "gcc")
	bin := filepath.Join(t.TempDir(), "threads")
	src, _ := filepath.Abs("testdata/threads.c")
	if out, err := exec.Command("gcc", "-g", "-O0", "-pthread", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			r := c.Call("debug_attach", map[string]any{"program": bin, "breakpoints": []string{"threads.c:19"}, "backend": backend.name})
			if !strings.HasPrefix(r.FirstLine(), "STOPPED at breakpoint 1 in main") {
				t.Fatalf("attach:\n%s", r.Text)
			}
			r = c.Call("debug_stack", nil)
			list := lineWith(r.Text, "threads (3): ")
			if list == "" || !strings.Contains(list, "[this stack]") {
				t.Fatalf("debug_stack does not list the 3 threads:\n%s", r.Text)
			}
			for _, n := range []int{2, 3} {
				w := c.Call("debug_stack", map[string]any{"thread": n})
				if w.IsError || !strings.Contains(w.Text, "worker at threads.c:") {
					t.Errorf("debug_stack thread %d (a worker, by its position):\n%s", n, w.Text)
				}
			}
			bad := c.Call("debug_stack", map[string]any{"thread": 99})
			if !bad.IsError || !strings.Contains(bad.Text, "no thread 99: the threads are ") {
				t.Errorf("debug_stack thread 99:\n%s", bad.Text)
			}
		})
	}
}

func lineWith(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
