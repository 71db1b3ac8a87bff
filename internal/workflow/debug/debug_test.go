package debug_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
)

var (
	buildOnce sync.Once
	progPath  string
	buildErr  error
)

// prog builds testdata/prog.c once per test binary.
func prog(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: apt-get install gcc")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "triage-debug-test-")
		if err != nil {
			buildErr = err
			return
		}
		src, _ := filepath.Abs("testdata/prog.c")
		progPath = filepath.Join(dir, "prog")
		out, err := exec.Command("gcc", "-g", "-O0", "-o", progPath, src).CombinedOutput()
		if err != nil {
			buildErr = &buildError{err, string(out)}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return progPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// needTool fails in CI (where everything is installed) and skips elsewhere.
func needTool(t *testing.T, name, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not found: install %s", name, pkg)
		}
		t.Skipf("%s not found: install %s", name, pkg)
	}
}

func TestLaunchBreakInspectExit(t *testing.T) {
	for _, backend := range []struct{ name, tool, pkg string }{
		{"dap", "lldb-vscode-16", "lldb-16"},
		{"lldb", "lldb-16", "lldb-16"},
	} {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			r := c.Call("debug_attach", map[string]any{"program": prog(t), "breakpoints": []string{"add"}, "backend": backend.name})
			if r.IsError || !strings.HasPrefix(r.FirstLine(), "STOPPED at breakpoint") || !strings.HasSuffix(r.FirstLine(), "in add at prog.c:5") {
				t.Fatalf("attach:\n%s", r.Text)
			}
			v := c.Call("debug_variables", nil)
			if !strings.Contains(v.Text, "a") || !strings.Contains(v.Text, "b") {
				t.Errorf("variables:\n%s", v.Text)
			}
			e := c.Call("debug_evaluate", map[string]any{"expression": "a + b + 100"})
			if e.IsError || !strings.Contains(e.Text, "= 100") {
				t.Errorf("evaluate:\n%s", e.Text)
			}
			if bad := c.Call("debug_evaluate", map[string]any{"expression": "a +* )"}); !bad.IsError {
				t.Errorf("syntax error accepted:\n%s", bad.Text)
			}
			st := c.Call("debug_stack", nil)
			if !strings.Contains(st.Text, "add at prog.c:5") || !strings.Contains(st.Text, "main at prog.c:12") {
				t.Errorf("stack:\n%s", st.Text)
			}
			if s := c.Call("debug_step", nil); s.IsError || !strings.Contains(s.FirstLine(), "prog.c:6") {
				t.Errorf("step over:\n%s", s.Text)
			}
			if rm := c.Call("debug_breakpoint_remove", map[string]any{"id": 1}); rm.IsError {
				t.Errorf("remove:\n%s", rm.Text)
			}
			end := c.Call("debug_continue", map[string]any{"wait_s": 30})
			if !strings.HasPrefix(end.FirstLine(), "EXITED (code 3)") {
				t.Errorf("continue after removing the breakpoint:\n%s", end.Text)
			}
			if d := c.Call("debug_detach", nil); d.IsError {
				t.Errorf("detach:\n%s", d.Text)
			}
		})
	}
}

func TestCrashWhileDebugging(t *testing.T) {
	needTool(t, "lldb-vscode-16", "lldb-16")
	c := mcptest.Connect(t, nil)
	r := c.Call("debug_attach", map[string]any{"program": prog(t), "args": []string{"crash"}, "breakpoints": []string{"prog.c:13"}})
	if !strings.HasPrefix(r.FirstLine(), "STOPPED at breakpoint") || !strings.HasSuffix(r.FirstLine(), "in main at prog.c:13") {
		t.Fatalf("attach:\n%s", r.Text)
	}
	crash := c.Call("debug_continue", map[string]any{"wait_s": 30})
	if !strings.HasPrefix(crash.FirstLine(), "CRASHED (SIGSEGV) in main at prog.c:17") || crash.Outcome != "failed" {
		t.Errorf("crash stop (outcome %s):\n%s", crash.Outcome, crash.Text)
	}
}

func TestOpenCore(t *testing.T) {
	dir := t.TempDir()
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{prog(t), "crash"}, Dir: dir, CoreDumps: true})
	if err != nil || !res.CoreDumped {
		t.Skipf("no core dumped here (core_pattern): %v %+v", err, res)
	}
	core := filepath.Join(dir, "core")
	if _, err := os.Stat(core); err != nil {
		t.Skipf("core not in the cwd (core_pattern is not \"core\"): %v", err)
	}
	c := mcptest.Connect(t, nil)
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			r := c.Call("debug_attach", map[string]any{"core": core, "program": prog(t), "backend": backend.name})
			if r.IsError || r.FirstLine() != "CRASHED (SIGSEGV) in main at prog.c:17" || r.Outcome != "failed" {
				t.Errorf("core (outcome %s):\n%s", r.Outcome, r.Text)
			}
			if v := c.Call("debug_evaluate", map[string]any{"expression": "total"}); v.IsError || !strings.Contains(v.FirstLine(), "= 10") {
				t.Errorf("a local from the core:\n%s", v.Text)
			}
			if s := c.Call("debug_step", nil); !s.IsError {
				t.Errorf("stepping a core:\n%s", s.Text)
			}
		})
	}
	wrong := c.Call("debug_attach", map[string]any{"core": core, "program": "/bin/sleep"})
	if !wrong.IsError || !strings.Contains(wrong.Text, "does not match") {
		t.Errorf("core with the wrong program:\n%s", wrong.Text)
	}
	notCore := c.Call("debug_attach", map[string]any{"core": prog(t), "program": prog(t)})
	if !notCore.IsError {
		t.Errorf("an executable passed as core:\n%s", notCore.Text)
	}
}

func TestBadInput(t *testing.T) {
	c := mcptest.Connect(t, nil)
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"debug_stack", nil, "no debug session"},
		{"debug_stack", map[string]any{"session_id": "dbg-99"}, "unknown debug session"},
		{"debug_attach", map[string]any{}, "exactly one of"},
		{"debug_attach", map[string]any{"pid": 123, "core": "/x"}, "exactly one of"},
		{"debug_attach", map[string]any{"core": "/x"}, "core needs program"},
		{"debug_attach", map[string]any{"program": "/no/such/program"}, "/no/such/program"},
		{"debug_attach", map[string]any{"program": prog(t), "backend": "gdbx"}, "gdbx"},
		{"debug_step", map[string]any{"kind": "sideways"}, "over, in or out"},
	}
	for _, tt := range tests {
		r := c.Call(tt.tool, tt.args)
		if !r.IsError || !strings.Contains(r.Text, tt.want) {
			t.Errorf("%s %v: isError %v %q, want %q", tt.tool, tt.args, r.IsError, r.Text, tt.want)
		}
	}
}

func TestAttachToRunningProcess(t *testing.T) {
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			testAttachToRunningProcess(t, backend.name)
		})
	}
}

func testAttachToRunningProcess(t *testing.T, backend string) {
	c := mcptest.Connect(t, nil)
	start := c.Call("process_start", map[string]any{"program": "sleep", "args": []string{"600"}})
	pid := int(start.Out["pid"].(float64))
	r := c.Call("debug_attach", map[string]any{"pid": pid, "backend": backend})
	if r.IsError || !(strings.HasPrefix(r.FirstLine(), "STOPPED") || strings.HasPrefix(r.FirstLine(), "RUNNING")) {
		t.Fatalf("attach to %d:\n%s", pid, r.Text)
	}
	if p := c.Call("debug_pause", nil); !strings.HasPrefix(p.FirstLine(), "STOPPED") {
		t.Fatalf("pause:\n%s", p.Text)
	}
	if st := c.Call("debug_stack", nil); st.IsError || len(st.Out["frames"].([]any)) == 0 {
		t.Errorf("stack of the attached process:\n%s", st.Text)
	}
	if d := c.Call("debug_detach", nil); d.IsError {
		t.Fatalf("detach:\n%s", d.Text)
	}
	if !testutil.ProcessAlive(pid) {
		t.Error("detaching killed the attached process")
	}
	if r := c.Call("debug_attach", map[string]any{"pid": 999999999, "backend": backend}); !r.IsError || !strings.Contains(r.Text, "999999999") {
		t.Errorf("attach to a pid that does not exist:\n%s", r.Text)
	}
}

// BenchmarkStack compares debug_stack through MCP with the same stackTrace
// request sent by the backend straight to the adapter. Target: <= +2 ms.
func BenchmarkStack(b *testing.B) {
	if _, err := exec.LookPath("lldb-vscode-16"); err != nil {
		b.Skip("lldb-vscode-16 not found")
	}
	c := mcptest.Connect(b, nil)
	r := c.Call("debug_attach", map[string]any{"program": benchProg(b), "breakpoints": []string{"add"}})
	if r.IsError {
		b.Fatal(r.Text)
	}
	backend, err := c.Svc.Debugger().Backend(context.Background(), "")
	if err != nil {
		b.Fatal(err)
	}
	var viaMCP, direct []time.Duration
	for b.Loop() {
		start := time.Now()
		if r := c.Call("debug_stack", nil); r.IsError {
			b.Fatal(r.Text)
		}
		viaMCP = append(viaMCP, time.Since(start))
		start = time.Now()
		if _, err := backend.Stack(context.Background(), 0, 20); err != nil {
			b.Fatal(err)
		}
		direct = append(direct, time.Since(start))
	}
	m, d := testutil.Median(viaMCP), testutil.Median(direct)
	b.ReportMetric(float64(m.Microseconds())/1000, "mcp-ms")
	b.ReportMetric(float64(d.Microseconds())/1000, "direct-ms")
	b.ReportMetric(float64((m-d).Microseconds())/1000, "overhead-ms")
}

func benchProg(b *testing.B) string {
	dir := b.TempDir()
	src, _ := filepath.Abs("testdata/prog.c")
	p := filepath.Join(dir, "prog")
	if out, err := exec.Command("gcc", "-g", "-O0", "-o", p, src).CombinedOutput(); err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	return p
}

func TestGoProgramUnderDlv(t *testing.T) {
	needTool(t, "dlv", "go install github.com/go-delve/delve/cmd/dlv")
	bin := filepath.Join(t.TempDir(), "goprog")
	if out, err := exec.Command("go", "build", "-gcflags=all=-N -l", "-o", bin, "./testdata/goprog").CombinedOutput(); err != nil {
		t.Fatalf("building: %v\n%s", err, out)
	}
	c := mcptest.Connect(t, nil)
	r := c.Call("debug_attach", map[string]any{"program": bin, "breakpoints": []string{"main.add"}})
	if r.IsError || !strings.HasPrefix(r.FirstLine(), "STOPPED at breakpoint") || !strings.Contains(r.FirstLine(), "main.add at main.go:10") {
		t.Fatalf("attach:\n%s", r.Text)
	}
	if e := c.Call("debug_evaluate", map[string]any{"expression": "a + b"}); e.IsError || !strings.Contains(e.Text, "= 0") {
		t.Errorf("evaluate:\n%s", e.Text)
	}
	if st := c.Call("debug_stack", nil); !strings.Contains(st.Text, "#0 main.add at main.go:10") || !strings.Contains(st.Text, "main.main at main.go:18") {
		t.Errorf("stack:\n%s", st.Text)
	}
	c.Call("debug_breakpoint_remove", map[string]any{"id": 1})
	// The fourth call is add(3, 3).
	src, _ := filepath.Abs("testdata/goprog/main.go")
	if bp := c.Call("debug_breakpoint_add", map[string]any{"location": src + ":10", "condition": "a == 3"}); bp.IsError || strings.Contains(bp.Text, "unverified") {
		t.Fatalf("conditional breakpoint:\n%s", bp.Text)
	}
	if s := c.Call("debug_continue", map[string]any{"wait_s": 30}); s.FirstLine() != "STOPPED at breakpoint 2 in main.add at main.go:10" {
		t.Errorf("conditional stop:\n%s", s.Text)
	}
	if v := c.Call("debug_variables", nil); !strings.Contains(v.Text, "a (int) = 3") || !strings.Contains(v.Text, "b (int) = 3") {
		t.Errorf("locals:\n%s", v.Text)
	}
	if s := c.Call("debug_step", nil); s.IsError || s.FirstLine() != "STOPPED (step) in main.add at main.go:11" {
		t.Errorf("step over:\n%s", s.Text)
	}
	if s := c.Call("debug_step", map[string]any{"kind": "out"}); s.IsError || !strings.Contains(s.FirstLine(), "main.main at main.go:18") {
		t.Errorf("step out:\n%s", s.Text)
	}
	c.Call("debug_breakpoint_remove", map[string]any{"id": 2})
	if end := c.Call("debug_continue", map[string]any{"wait_s": 30}); !strings.HasPrefix(end.FirstLine(), "EXITED (code 3)") {
		t.Errorf("continue:\n%s", end.Text)
	}
}
