package dap

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/toolpath"
)

// Real-tool tests: gcc-built and go-built targets under lldb-vscode and dlv.

var (
	buildOnce  sync.Map // name -> *builtTarget
	testdataAb = func() string { p, _ := filepath.Abs("testdata"); return p }()
)

type builtTarget struct {
	once sync.Once
	path string
	err  error
}

func build(t testing.TB, name string, argv ...string) string {
	t.Helper()
	v, _ := buildOnce.LoadOrStore(name, &builtTarget{})
	bt := v.(*builtTarget)
	bt.once.Do(func() {
		dir, err := os.MkdirTemp("", "triage-dap-test-")
		if err != nil {
			bt.err = err
			return
		}
		bt.path = filepath.Join(dir, name)
		var out strings.Builder
		argv = append(argv, "-o", bt.path)
		spec := spawn.Spec{Argv: argv, Dir: testdataAb, Combined: &out, Timeout: 2 * time.Minute}
		if name == "gotarget" || name == "gopanic" || name == "gowatch" {
			spec.Argv = append(argv[:len(argv):len(argv)], ".")
			spec.Dir = filepath.Join(testdataAb, name)
		}
		res, err := spawn.Run(context.Background(), spec)
		if err != nil || !res.Success() {
			bt.err = errors.New("build failed: " + out.String())
		}
	})
	if bt.err != nil {
		t.Fatal(bt.err)
	}
	return bt.path
}

func needTool(t testing.TB, tool, pkg string) {
	t.Helper()
	if tool == "lldb-vscode" {
		if findLLDBDAP() == "" {
			t.Skip("lldb-dap/lldb-vscode not found (Debian package lldb-16)")
		}
		return
	}
	if tool == "dlv" {
		if _, err := toolpath.Dlv.Find(); err != nil {
			t.Skip("dlv not found (go install github.com/go-delve/delve/cmd/dlv@latest)")
		}
		return
	}
	if _, err := exec.LookPath(tool); err != nil {
		t.Skipf("%s not found (Debian package %s)", tool, pkg)
	}
}

func cTarget(t testing.TB) string {
	needTool(t, "gcc", "gcc")
	return build(t, "target", "gcc", "-g", "-O0", "target.c")
}

func goTarget(t testing.TB) string {
	return build(t, "gotarget", "go", "build", "-gcflags=all=-N -l")
}

func newBackend(t *testing.T, kind string) *Backend {
	t.Helper()
	b := New(kind, debugger.Config{Dir: t.TempDir()})
	t.Cleanup(func() { b.Dispose() })
	return b
}

type scenario struct {
	name, kind   string
	fn           string // the function add, as the debugger names it
	program      func(testing.TB) string
	source       string
	loopLine     int
	condA, condI string // conditions on add's b == 3 and the loop's i == 4
	evalExpr     string
}

var scenarios = []scenario{
	{name: "c-lldb", kind: KindLLDB, fn: "add", program: cTarget, source: "target.c", loopLine: 24,
		condA: "b == 3", condI: "i == 4", evalExpr: "a*100"},
	{name: "go-dlv", kind: KindDlv, fn: "main.add", program: goTarget, source: "gotarget/main.go", loopLine: 19,
		condA: "b == 3", condI: "i == 4", evalExpr: "a*100"},
}

func TestLaunchBreakInspectStepExit(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			needTool(t, map[string]string{KindLLDB: "lldb-vscode", KindDlv: "dlv"}[sc.kind], "")
			prog := sc.program(t)
			b := newBackend(t, sc.kind)
			ctx := context.Background()
			st, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog, Breakpoints: []debugger.BreakpointSpec{
				{Function: sc.fn, Condition: sc.condA},
			}})
			if err != nil {
				t.Fatalf("launch: %v", err)
			}
			if bps := b.Breakpoints(); len(bps) != 1 || !bps[0].Verified {
				t.Fatalf("breakpoints after launch: %+v", bps)
			}
			mustStop(t, b, st, debugger.StopBreakpoint)

			frames, err := b.Stack(ctx, 0, 10)
			if err != nil || len(frames) < 2 {
				t.Fatalf("stack: %v %+v", err, frames)
			}
			if !strings.HasSuffix(frames[0].Function, "add") || !strings.HasSuffix(frames[1].Function, "main") {
				t.Errorf("frames = %s, %s; want add, main", frames[0].Function, frames[1].Function)
			}
			vars, err := b.Variables(ctx, debugger.VariablesRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if got := varValue(vars, "a"); got != "3" {
				t.Errorf("a = %q, want 3 (condition b == 3); vars %+v", got, vars)
			}
			v, err := b.Evaluate(ctx, sc.evalExpr, 0)
			if err != nil || v.Value != "300" {
				t.Errorf("evaluate %s = %+v, %v; want 300", sc.evalExpr, v, err)
			}
			if _, err := b.Evaluate(ctx, "a +* )", 0); err == nil {
				t.Error("evaluate of a syntax error succeeded")
			}

			st, err = b.Step(ctx, debugger.StepOver, 0, 20*time.Second)
			if err != nil || st.LastStop == nil || st.LastStop.Reason != debugger.StopStep {
				t.Fatalf("step over: %+v, %v", st, err)
			}

			// Swap the function breakpoint for a conditional file:line one.
			if err := b.RemoveBreakpoint(ctx, 1); err != nil {
				t.Fatal(err)
			}
			bp, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{
				File: filepath.Join(testdataAb, sc.source), Line: sc.loopLine, Condition: sc.condI})
			if err != nil || !bp.Verified {
				t.Fatalf("file:line breakpoint: %+v, %v", bp, err)
			}
			st, err = b.Continue(ctx, debugger.ContinueOptions{Wait: 20 * time.Second})
			mustStop(t, b, st, debugger.StopBreakpoint)
			if err != nil {
				t.Fatal(err)
			}
			vars, _ = b.Variables(ctx, debugger.VariablesRequest{})
			if got := varValue(vars, "i"); got != "4" {
				t.Errorf("i = %q at the conditional line breakpoint, want 4", got)
			}

			// Removed: never hit again; the program runs to its exit code.
			if err := b.RemoveBreakpoint(ctx, bp.ID); err != nil {
				t.Fatal(err)
			}
			st, err = b.Continue(ctx, debugger.ContinueOptions{Wait: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if st.Status != debugger.StatusExited || st.LastStop.ExitCode == nil || *st.LastStop.ExitCode != 3 {
				t.Fatalf("after last continue: %+v (stop %v), want exited with code 3", st, st.LastStop)
			}
			if _, err := b.Stack(ctx, 0, 1); !errors.Is(err, debugger.ErrTargetExited) {
				t.Errorf("stack after exit: %v, want ErrTargetExited", err)
			}
		})
	}
}

// mustStop waits (if needed) for the target to stop with reason.
func mustStop(t *testing.T, b *Backend, st debugger.State, reason debugger.StopReason) debugger.State {
	t.Helper()
	// Wait for the stop without resuming: Continue would race a stop event
	// that arrives just after Launch returned "running".
	deadline := time.After(20 * time.Second)
	for st.Status == debugger.StatusRunning || st.Status == debugger.StatusNotStarted {
		b.mu.Lock()
		ch := b.changed
		b.mu.Unlock()
		if st = b.State(); st.Status != debugger.StatusRunning && st.Status != debugger.StatusNotStarted {
			break
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("no stop within 20s: %+v", b.State())
		}
		st = b.State()
	}
	if st.Status != debugger.StatusStopped || st.LastStop == nil || st.LastStop.Reason != reason {
		t.Fatalf("state = %+v stop %v, want stopped by %s", st, st.LastStop, reason)
	}
	return st
}

func varValue(vars []debugger.Variable, name string) string {
	for _, v := range vars {
		if v.Name == name {
			return v.Value
		}
	}
	return "<missing>"
}

// startWaiting starts the C target in wait mode and returns once it is
// parked in main (it prints "waiting" first).
func startWaiting(t testing.TB, prog string) *spawn.Process {
	t.Helper()
	ready := make(chan struct{})
	var once sync.Once
	w := writerFunc(func(p []byte) (int, error) {
		if strings.Contains(string(p), "waiting") {
			once.Do(func() { close(ready) })
		}
		return len(p), nil
	})
	p, err := spawn.Start(context.Background(), spawn.Spec{Argv: []string{prog, "wait"}, Stdout: w})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(0) })
	select {
	case <-ready:
	case <-p.Done():
		t.Fatal("target exited before it was ready")
	case <-time.After(30 * time.Second):
		t.Fatal("target never said it was waiting")
	}
	return p
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// A launch that stops on entry reports an entry stop (lldb says SIGSTOP);
// WaitStop then waits on the adapter's events for the stop a continue that
// did not wait runs into.
func TestEntryStopAndWaitStop(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			needTool(t, map[string]string{KindLLDB: "lldb-vscode", KindDlv: "dlv"}[sc.kind], "")
			prog := sc.program(t)
			b := newBackend(t, sc.kind)
			ctx := context.Background()
			st, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog, StopOnEntry: true})
			if err != nil {
				t.Fatal(err)
			}
			st, err = b.WaitStop(ctx, 20*time.Second)
			if err != nil || st.Status != debugger.StatusStopped || st.LastStop.Reason != debugger.StopEntry || st.LastStop.Signal != "" {
				t.Fatalf("after a launch stopping on entry: %+v %v, %v; want an entry stop", st, st.LastStop, err)
			}
			if st.LastStop.Crashed() {
				t.Error("an entry stop reads as a crash")
			}
			if _, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{Function: sc.fn}); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Continue(ctx, debugger.ContinueOptions{}); err != nil {
				t.Fatal(err)
			}
			st, err = b.WaitStop(ctx, 20*time.Second)
			if err != nil || st.Status != debugger.StatusStopped || st.LastStop.Reason != debugger.StopBreakpoint {
				t.Fatalf("WaitStop after continue: %+v %v, %v; want the breakpoint", st, st.LastStop, err)
			}
			if again, err := b.WaitStop(ctx, 0); err != nil || again.Status != debugger.StatusStopped {
				t.Fatalf("WaitStop of a stopped target: %+v, %v", again, err)
			}
		})
	}
}

// A continue whose wait runs out leaves the target running (ErrTimeout);
// WaitStop says the same, and a pause stops it.
func TestContinueWaitRunsOut(t *testing.T) {
	needTool(t, "lldb-vscode", "")
	prog := cTarget(t)
	b := newBackend(t, KindLLDB)
	ctx := context.Background()
	if _, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog, Args: []string{"wait"}}); err != nil {
		t.Fatal(err)
	}
	st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 300 * time.Millisecond})
	if !errors.Is(err, debugger.ErrTimeout) || st.Status != debugger.StatusRunning {
		t.Fatalf("continue: %+v, %v; want ErrTimeout while running", st, err)
	}
	if st, err = b.WaitStop(ctx, 200*time.Millisecond); !errors.Is(err, debugger.ErrTimeout) || st.Status != debugger.StatusRunning {
		t.Fatalf("WaitStop: %+v, %v; want ErrTimeout while running", st, err)
	}
	if st, err = b.Pause(ctx); err != nil || st.Status != debugger.StatusStopped {
		t.Fatalf("pause: %+v, %v", st, err)
	}
}
