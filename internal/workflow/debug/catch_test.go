package debug_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
)

// A C++ throw stops before unwinding, through debug_attach's breakpoints
// and through debug_breakpoint_add, on both backends: the catch has not
// run (caught is 0), and the stop is no crash.
func TestCatchCxxThrow(t *testing.T) {
	needTool(t, "g++", "g++")
	bin := filepath.Join(t.TempDir(), "throw")
	src, _ := filepath.Abs("../../debugger/dap/testdata/throw.cpp")
	if out, err := exec.Command("g++", "-g", "-O0", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			r := c.Call("debug_attach", map[string]any{"program": bin, "breakpoints": []string{"main"}, "backend": backend.name})
			if !strings.HasPrefix(r.FirstLine(), "STOPPED at breakpoint 1 in main") {
				t.Fatalf("attach:\n%s", r.Text)
			}
			if bp := c.Call("debug_breakpoint_add", map[string]any{"location": "catch:c++"}); bp.IsError || !strings.HasPrefix(bp.FirstLine(), "BREAKPOINT 2 at") {
				t.Fatalf("catch:c++:\n%s", bp.Text)
			}
			s := c.Call("debug_continue", map[string]any{"wait_s": 30})
			if s.IsError || !strings.HasPrefix(s.FirstLine(), "STOPPED at a C++ throw") || !strings.Contains(s.FirstLine(), "caught before unwinding") || s.Outcome == "failed" {
				t.Fatalf("continue (%s):\n%s", s.Outcome, s.Text)
			}
			t.Log(s.FirstLine())
			if st := c.Call("debug_stack", nil); !strings.Contains(st.Text, "thrower") {
				t.Errorf("the throwing function is not on the stack:\n%s", st.Text)
			}
			if v := c.Call("debug_evaluate", map[string]any{"expression": "caught"}); v.IsError || !strings.Contains(v.FirstLine(), "= 0") {
				t.Errorf("caught, at the throw:\n%s", v.Text)
			}
		})
	}
}

// A Go panic stops in runtime.gopanic under dlv, before the deferred
// recover runs.
func TestCatchGoPanic(t *testing.T) {
	needTool(t, "dlv", "go install github.com/go-delve/delve/cmd/dlv")
	bin := filepath.Join(t.TempDir(), "gopanic")
	build := exec.Command("go", "build", "-gcflags=all=-N -l", "-o", bin, ".")
	build.Dir = "../../debugger/dap/testdata/gopanic" // the debugger's own panic fixture
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building: %v\n%s", err, out)
	}
	c := mcptest.Connect(t, nil)
	r := c.Call("debug_attach", map[string]any{"program": bin, "breakpoints": []string{"catch:go-panic"}})
	if r.IsError || !strings.HasPrefix(r.FirstLine(), "STOPPED at a Go panic (caught before unwinding) in runtime.gopanic") {
		t.Fatalf("attach:\n%s", r.Text)
	}
	if st := c.Call("debug_stack", nil); !strings.Contains(st.Text, "main.explode at main.go:11") {
		t.Errorf("the panicking function is not on the stack:\n%s", st.Text)
	}
	if v := c.Call("debug_evaluate", map[string]any{"expression": "main.recovered"}); v.IsError || !strings.Contains(v.FirstLine(), "false") {
		t.Errorf("recovered, at the panic:\n%s", v.Text)
	}
}

// Watch and catch locations that cannot be are clear errors.
func TestCatchAndWatchBadInput(t *testing.T) {
	needTool(t, "lldb-16", "lldb-16")
	c := mcptest.Connect(t, nil)
	r := c.Call("debug_attach", map[string]any{"program": prog(t), "breakpoints": []string{"main"}, "backend": "lldb"})
	if r.IsError {
		t.Fatalf("attach:\n%s", r.Text)
	}
	if bp := c.Call("debug_breakpoint_add", map[string]any{"location": "catch:java"}); bp.Outcome != "usage_error" || !strings.Contains(bp.Text, "unknown exception kind") {
		t.Errorf("catch:java (%s):\n%s", bp.Outcome, bp.Text)
	}
	if bp := c.Call("debug_breakpoint_add", map[string]any{"location": "watch:total + 1"}); !bp.IsError {
		t.Errorf("a watch on a value that is no lvalue:\n%s", bp.Text)
	}
}

// A watch:counter stops at the line that writes, with old → new, through
// MCP on both backends (emulated by single-stepping where the host does
// not deliver hardware watchpoints, as it says); after the last write the
// target exits; a read watch works or is refused saying why.
func TestWatchStopsAtWritingLine(t *testing.T) {
	needTool(t, "gcc", "gcc")
	bin := filepath.Join(t.TempDir(), "watch")
	src, _ := filepath.Abs("../../debugger/dap/testdata/watch.c")
	if out, err := exec.Command("gcc", "-g", "-O0", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			if r := c.Call("debug_attach", map[string]any{"program": bin, "breakpoints": []string{"main"}, "backend": backend.name}); r.IsError {
				t.Fatalf("attach:\n%s", r.Text)
			}
			rw := c.Call("debug_breakpoint_add", map[string]any{"location": "rwatch:counter"})
			if rw.IsError && !strings.Contains(rw.Text, "unsupported here because") {
				t.Errorf("rwatch:counter neither set nor refused saying why:\n%s", rw.Text)
			}
			bp := c.Call("debug_breakpoint_add", map[string]any{"location": "watch:counter"})
			if bp.IsError {
				t.Fatalf("watch:counter:\n%s", bp.Text)
			}
			t.Log(bp.Text)
			if soft, _ := debugger.SoftWatchNeeded(); soft && !strings.Contains(bp.FirstLine(), "hardware watchpoints are not delivered on this host") {
				t.Errorf("an emulated watch does not say so:\n%s", bp.Text)
			}
			for _, want := range []string{"counter 0 → 1, written at watch.c:7", "counter 1 → 3, written at watch.c:7"} {
				s := c.Call("debug_continue", map[string]any{"wait_s": 30})
				if s.IsError || !strings.HasPrefix(s.FirstLine(), "STOPPED at watchpoint") || !strings.Contains(s.FirstLine(), want) {
					t.Fatalf("continue, want %q:\n%s", want, s.Text)
				}
				t.Log(s.FirstLine())
				if st := c.Call("debug_stack", nil); !strings.Contains(st.Text, "bump") {
					t.Errorf("the writing function is not on the stack:\n%s", st.Text)
				}
			}
			if s := c.Call("debug_continue", map[string]any{"wait_s": 30}); s.IsError || !strings.Contains(s.FirstLine(), "EXITED") {
				t.Errorf("after the last write:\n%s", s.Text)
			}
		})
	}
}

// A watch among debug_attach's breakpoints is set at the launch's first
// stop and stops at the writing line; alone it is a usage error saying
// what to add.
func TestWatchAtAttach(t *testing.T) {
	needTool(t, "gcc", "gcc")
	needTool(t, "lldb-16", "lldb-16")
	bin := filepath.Join(t.TempDir(), "watch")
	src, _ := filepath.Abs("../../debugger/dap/testdata/watch.c")
	if out, err := exec.Command("gcc", "-g", "-O0", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	c := mcptest.Connect(t, nil)
	r := c.Call("debug_attach", map[string]any{"program": bin, "breakpoints": []string{"watch:counter"}, "backend": "lldb"})
	if r.Outcome != "usage_error" || !strings.Contains(r.Text, "a watch needs a live process: give a breakpoint to stop at first") {
		t.Errorf("a watch alone (%s):\n%s", r.Outcome, r.Text)
	}
	r = c.Call("debug_attach", map[string]any{"program": bin, "breakpoints": []string{"main", "watch:counter"}, "backend": "lldb"})
	if r.IsError || !strings.HasPrefix(r.FirstLine(), "STOPPED at breakpoint 1 in main") {
		t.Fatalf("attach:\n%s", r.Text)
	}
	s := c.Call("debug_continue", map[string]any{"wait_s": 30})
	if s.IsError || !strings.HasPrefix(s.FirstLine(), "STOPPED at watchpoint 2: counter 0 → 1, written at watch.c:7") {
		t.Fatalf("continue:\n%s", s.Text)
	}
}
