package debug_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
)

// cBackends are the backends every C-level test runs on.
var cBackends = []struct{ name, tool, pkg string }{
	{"dap", "lldb-vscode-16", "lldb-16"},
	{"lldb", "lldb-16", "lldb-16"},
}

func TestBreakpointConditionsAndPendingLocations(t *testing.T) {
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			r := c.Call("debug_attach", map[string]any{"program": prog(t), "stop_on_entry": true, "backend": backend.name})
			if r.IsError || !strings.HasPrefix(r.FirstLine(), "STOPPED") || r.Outcome != "ok" {
				t.Fatalf("stop on entry is a stop, not a crash (outcome %s):\n%s", r.Outcome, r.Text)
			}
			// add(0,0) add(0,1) add(1,2) add(3,3) add(6,4): the third hit has a == 1.
			hit := c.Call("debug_breakpoint_add", map[string]any{"location": "add", "hit_count": 3})
			if hit.IsError || !strings.HasPrefix(hit.FirstLine(), "BREAKPOINT 1 at add") {
				t.Fatalf("hit count:\n%s", hit.Text)
			}
			expectStop(t, c, "STOPPED at breakpoint 1 in add at prog.c:5")
			expectValue(t, c, "b", "= 2")
			c.Call("debug_breakpoint_remove", map[string]any{"id": 1})

			cond := c.Call("debug_breakpoint_add", map[string]any{"location": "prog.c:5", "condition": "a == 6"})
			if cond.IsError || strings.Contains(cond.Text, "unverified") {
				t.Fatalf("conditional:\n%s", cond.Text)
			}
			expectStop(t, c, "STOPPED at breakpoint 2 in add at prog.c:5")
			expectValue(t, c, "b", "= 4")

			st := c.Call("debug_stack", map[string]any{"max_frames": 1})
			if !strings.Contains(st.Text, "#0 add at prog.c:5") || !strings.Contains(st.Text, `debug_stack {"max_frames":4`) {
				t.Errorf("a cut stack says so and names the call for more:\n%s", st.Text)
			}

			for _, tt := range []struct{ location, want string }{
				{"nosuch.c:3", "no source named nosuch.c"},
				{"/no/such/dir/nosuch.c:3", "no such file /no/such/dir/nosuch.c"},
				{"no_such_function", "no function no_such_function"},
			} {
				bad := c.Call("debug_breakpoint_add", map[string]any{"location": tt.location})
				if bad.IsError || !strings.Contains(bad.FirstLine(), "unverified") || !strings.Contains(bad.Text, tt.want) {
					t.Errorf("breakpoint at %s: want unverified, %q:\n%s", tt.location, tt.want, bad.Text)
				}
			}
			if rm := c.Call("debug_breakpoint_remove", map[string]any{"id": 42}); !rm.IsError || !strings.Contains(rm.Text, "unknown breakpoint") {
				t.Errorf("removing an unknown breakpoint:\n%s", rm.Text)
			}
			c.Call("debug_breakpoint_remove", map[string]any{"id": 2})
			expectStop(t, c, "EXITED (code 3)")
		})
	}
}

func expectStop(t *testing.T, c *mcptest.Client, want string) {
	t.Helper()
	r := c.Call("debug_continue", map[string]any{"wait_s": 30})
	if r.IsError || r.FirstLine() != want {
		t.Fatalf("continue: want %q:\n%s", want, r.Text)
	}
}

func expectValue(t *testing.T, c *mcptest.Client, expr, want string) {
	t.Helper()
	r := c.Call("debug_evaluate", map[string]any{"expression": expr})
	if r.IsError || !strings.Contains(r.FirstLine(), want) {
		t.Errorf("evaluate %s: want %q:\n%s", expr, want, r.Text)
	}
}

// TestDeadAdapterAndTwoSessions runs two sessions on different backends,
// kills one's adapter, and checks the other carries on.
func TestDeadAdapterAndTwoSessions(t *testing.T) {
	needTool(t, "lldb-vscode-16", "lldb-16")
	needTool(t, "lldb-16", "lldb-16")
	c := mcptest.Connect(t, nil)
	a := c.Call("debug_attach", map[string]any{"program": prog(t), "breakpoints": []string{"add"}})
	b := c.Call("debug_attach", map[string]any{"program": prog(t), "breakpoints": []string{"add"}, "backend": "lldb"})
	if a.IsError || b.IsError {
		t.Fatalf("attach:\n%s\n%s", a.Text, b.Text)
	}
	ida, idb := a.Out["session_id"].(string), b.Out["session_id"].(string)
	if ida == idb {
		t.Fatalf("two sessions share the id %s", ida)
	}
	targetA := int(a.Out["state"].(map[string]any)["pid"].(float64))

	// A process another debugger traces cannot be attached to.
	if r := c.Call("debug_attach", map[string]any{"pid": targetA}); !r.IsError || !strings.Contains(r.Text, "not permitted") {
		t.Errorf("attach to a traced pid:\n%s", r.Text)
	}

	backend, err := c.Svc.Debugger().Backend(context.Background(), ida)
	if err != nil {
		t.Fatal(err)
	}
	adapter := debugger.Unwrap(backend).(interface{ AdapterPid() int }).AdapterPid()
	if err := syscall.Kill(adapter, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"debug_stack", "debug_continue", "debug_step"} {
		start := time.Now()
		r := c.Call(tool, map[string]any{"session_id": ida})
		if took := time.Since(start); took > time.Second {
			t.Errorf("%s on a dead session took %v", tool, took)
		}
		if !r.IsError || !strings.Contains(r.Text, "debugger is gone") || !strings.Contains(r.Text, "SIGKILL") {
			t.Errorf("%s on a dead session:\n%s", tool, r.Text)
		}
	}
	if r := c.Call("debug_step", map[string]any{"session_id": idb}); r.IsError || r.FirstLine() != "STOPPED (step) in add at prog.c:6" {
		t.Errorf("the other session after one died:\n%s", r.Text)
	}
	// The lldb command line dying is the same story.
	backendB, err := c.Svc.Debugger().Backend(context.Background(), idb)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(debugger.Unwrap(backendB).(interface{ EnginePid() int }).EnginePid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if r := c.Call("debug_stack", map[string]any{"session_id": idb}); !r.IsError || !strings.Contains(r.Text, "debugger is gone") || time.Since(start) > time.Second {
		t.Errorf("debug_stack after lldb died (%v):\n%s", time.Since(start), r.Text)
	}
	if r := c.Call("debug_detach", map[string]any{"session_id": ida}); r.IsError {
		t.Errorf("detaching a dead session:\n%s", r.Text)
	}
	if !testutil.WaitGone(targetA, 10*time.Second) {
		t.Errorf("the dead session's debuggee %d outlived it", targetA)
	}
	if r := c.Call("debug_stack", map[string]any{"session_id": ida}); !r.IsError || !strings.Contains(r.Text, "unknown debug session") || !strings.Contains(r.Text, "open: "+idb) {
		t.Errorf("a detached session:\n%s", r.Text)
	}
}

func TestRunningTarget(t *testing.T) {
	needTool(t, "lldb-vscode-16", "lldb-16")
	c := mcptest.Connect(t, nil)
	// A bare name is found on PATH.
	r := c.Call("debug_attach", map[string]any{"program": "sleep", "args": []string{"600"}})
	if r.FirstLine() != "RUNNING" {
		t.Fatalf("attach:\n%s", r.Text)
	}
	pid := int(r.Out["state"].(map[string]any)["pid"].(float64))
	for tool, args := range map[string]map[string]any{"debug_step": nil, "debug_stack": nil, "debug_evaluate": {"expression": "1"}} {
		if r := c.Call(tool, args); !r.IsError || !strings.Contains(r.Text, "target is running") {
			t.Errorf("%s while running:\n%s", tool, r.Text)
		}
	}
	if r := c.Call("debug_continue", map[string]any{"wait_s": 0.2}); r.IsError || r.FirstLine() != "RUNNING" || !strings.Contains(r.Text, "no stop within 0.2s (wait_s)") {
		t.Errorf("continue with a short wait:\n%s", r.Text)
	}
	if r := c.Call("debug_pause", nil); r.IsError || !strings.HasPrefix(r.FirstLine(), "STOPPED") || r.Outcome != "ok" {
		t.Errorf("pause (outcome %s):\n%s", r.Outcome, r.Text)
	}
	if r := c.Call("debug_detach", nil); r.IsError {
		t.Fatalf("detach:\n%s", r.Text)
	}
	if !testutil.WaitGone(pid, 10*time.Second) {
		t.Errorf("detach left the launched target %d running", pid)
	}
}

func TestRawCommand(t *testing.T) {
	needTool(t, "lldb-16", "lldb-16")
	c := mcptest.Connect(t, &config.Config{Output: config.Output{BudgetBytes: 512}})
	if r := c.Call("debug_attach", map[string]any{"program": prog(t), "breakpoints": []string{"add"}, "backend": "lldb"}); r.IsError {
		t.Fatal(r.Text)
	}
	r := c.Call("debug_command", map[string]any{"command": "disassemble -n main"})
	id, _ := r.Out["output_id"].(string)
	if r.IsError || id == "" || r.Out["truncated"] != true || len(r.Text) > 1024 {
		t.Fatalf("long command output (%d bytes):\n%s", len(r.Text), r.Text)
	}
	total := int(r.Out["total_lines"].(float64))
	page := c.Call("output_get", map[string]any{"output_id": id})
	if page.IsError || !strings.Contains(page.FirstLine(), fmt.Sprintf("of %d", total)) || !strings.Contains(page.Text, "prog`main:") {
		t.Errorf("output_get %s: want %d lines:\n%s", id, total, page.Text)
	}
	start := time.Now()
	slow := c.Call("debug_command", map[string]any{"command": "script import time; time.sleep(30)", "timeout_s": 0.5})
	if took := time.Since(start); !slow.IsError || !strings.Contains(slow.Text, "did not finish within 500ms (timeout_s, at most 3600)") || took > 5*time.Second {
		t.Errorf("a command past its timeout (%v):\n%s", took, slow.Text)
	}
}

// TestSessionDefaults: debugger_backend, project_dir (where a relative
// program is found) and env come from session defaults;
// an explicit backend wins.
func TestSessionDefaults(t *testing.T) {
	needTool(t, "lldb-16", "lldb-16")
	needTool(t, "lldb-vscode-16", "lldb-16")
	c := mcptest.Connect(t, nil)
	dir := filepath.Dir(prog(t))
	if r := c.Call("session_set_defaults", map[string]any{"debugger_backend": "lldb", "project_dir": dir, "env": map[string]any{"TRIAGE_DEBUG_PROBE": "42"}}); r.IsError {
		t.Fatal(r.Text)
	}
	r := c.Call("debug_attach", map[string]any{"program": "./prog", "breakpoints": []string{"prog.c:5"}})
	if r.IsError || r.Out["backend"] != "lldb" || !strings.HasPrefix(r.FirstLine(), "STOPPED at breakpoint 1") {
		t.Fatalf("attach with session defaults:\n%s", r.Text)
	}
	env := c.Call("debug_evaluate", map[string]any{"expression": `(char *)getenv("TRIAGE_DEBUG_PROBE")`})
	if !strings.Contains(env.Text, `"42"`) {
		t.Errorf("env from the session defaults:\n%s", env.Text)
	}
	if r := c.Call("debug_attach", map[string]any{"program": "prog", "breakpoints": []string{"add"}, "backend": "dap"}); r.IsError || r.Out["backend"] != "dap" {
		t.Errorf("explicit backend over the session default:\n%s", r.Text)
	}
}

// TestShutdownRemovesSessionFiles: closing the services removes the session
// directories (adapter logs) and kills a launched target.
func TestShutdownRemovesSessionFiles(t *testing.T) {
	needTool(t, "lldb-vscode-16", "lldb-16")
	// The package's temporary directory is its own (testutil.Main).
	pattern := filepath.Join(os.TempDir(), "triage-debug-[0-9]*") // not the test program's triage-debug-test-*
	var pid int
	t.Run("session", func(t *testing.T) {
		c := mcptest.Connect(t, nil)
		r := c.Call("debug_attach", map[string]any{"program": "sleep", "args": []string{"600"}})
		if r.IsError {
			t.Fatal(r.Text)
		}
		pid = int(r.Out["state"].(map[string]any)["pid"].(float64))
		if dirs, _ := filepath.Glob(pattern); len(dirs) == 0 {
			t.Errorf("no session directory matches %s", pattern)
		}
	})
	if dirs, _ := filepath.Glob(pattern); len(dirs) != 0 {
		t.Errorf("session directories left after shutdown: %v", dirs)
	}
	if pid != 0 && !testutil.WaitGone(pid, 10*time.Second) {
		t.Errorf("launched target %d outlived the shutdown", pid)
	}
}
