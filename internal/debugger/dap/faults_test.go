package dap

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil"
)

func TestCrashWhileDebuggingIsASignalStop(t *testing.T) {
	needTool(t, "lldb-vscode", "")
	b := newBackend(t, KindLLDB)
	st, err := b.Launch(context.Background(), debugger.LaunchSpec{Program: cTarget(t), Args: []string{"crash"}})
	if err != nil {
		t.Fatal(err)
	}
	st = mustStop(t, b, st, debugger.StopSignal)
	if st.LastStop.Signal != "SIGSEGV" || !st.LastStop.Crashed() {
		t.Errorf("stop = %+v, want a SIGSEGV crash", st.LastStop)
	}
	frames, err := b.Stack(context.Background(), 0, 5)
	if err != nil || len(frames) == 0 || frames[0].Function != "crash" || frames[0].Line != 14 {
		t.Fatalf("faulting frame: %+v, %v; want crash at line 14", frames, err)
	}
}

func TestAttachPauseDetach(t *testing.T) {
	needTool(t, "lldb-vscode", "")
	target := startWaiting(t, cTarget(t))
	b := newBackend(t, KindLLDB)
	ctx := context.Background()
	st, err := b.Attach(ctx, debugger.AttachSpec{Pid: target.Pid()})
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != debugger.StatusStopped {
		if st, err = b.Pause(ctx); err != nil {
			t.Fatal(err)
		}
	}
	frames, err := b.Stack(ctx, 0, 20)
	if err != nil || !hasFunction(frames, "main") {
		t.Fatalf("stack of attached process: %+v, %v", frames, err)
	}
	if err := b.Detach(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-target.Done():
		t.Fatal("detach killed the attached process")
	default:
	}
}

func hasFunction(frames []debugger.Frame, fn string) bool {
	for _, f := range frames {
		if f.Function == fn {
			return true
		}
	}
	return false
}

func TestCoreFileCrashingFrame(t *testing.T) {
	needTool(t, "lldb-vscode", "")
	needTool(t, "gdb", "gdb")
	prog := cTarget(t)
	core := filepath.Join(t.TempDir(), "core")
	var out strings.Builder
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv:     []string{"gdb", "-nx", "-batch", "-ex", "run", "-ex", "generate-core-file " + core, "--args", prog, "crash"},
		Combined: &out, Timeout: time.Minute,
	})
	if err != nil || !res.Success() {
		t.Fatalf("making a core with gdb: %v\n%s", err, out.String())
	}
	b := newBackend(t, KindLLDB)
	st, err := b.LoadCore(context.Background(), debugger.CoreSpec{Program: prog, Core: core})
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != debugger.StatusStopped {
		t.Fatalf("core state = %+v", st)
	}
	frames, err := b.Stack(context.Background(), 0, 5)
	if err != nil || len(frames) == 0 || frames[0].Function != "crash" {
		t.Fatalf("core's crashing frame: %+v, %v", frames, err)
	}
	if _, err := b.Continue(context.Background(), debugger.ContinueOptions{}); !errors.Is(err, debugger.ErrUnsupported) {
		t.Errorf("continue on a core: %v, want ErrUnsupported", err)
	}
	// A core is ended, not detached from (lldb-dap 22 cannot detach one).
	if err := b.Detach(context.Background()); err != nil {
		t.Errorf("detaching from a core: %v", err)
	}
}

func TestAdapterDeathIsolatedToItsSession(t *testing.T) {
	needTool(t, "lldb-vscode", "")
	prog := cTarget(t)
	ctx := context.Background()
	launch := func() *Backend {
		b := newBackend(t, KindLLDB)
		st, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog,
			Breakpoints: []debugger.BreakpointSpec{{Function: "add"}}})
		if err != nil {
			t.Fatal(err)
		}
		mustStop(t, b, st, debugger.StopBreakpoint)
		return b
	}
	victim, other := launch(), launch()
	if err := syscall.Kill(victim.AdapterPid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := victim.Stack(ctx, 0, 5)
	for err == nil && time.Since(start) < time.Second {
		// The death is noticed asynchronously; a call issued before that
		// may still be answered... by nobody: it is retired instead.
		_, err = victim.Stack(ctx, 0, 5)
	}
	if !errors.Is(err, debugger.ErrSessionDead) {
		t.Fatalf("after killing the adapter: %v, want ErrSessionDead", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("dead session noticed after %s, want under a second", d)
	}
	if st := victim.State(); st.Status != debugger.StatusDead || st.Error == "" {
		t.Errorf("victim state = %+v", st)
	}
	if frames, err := other.Stack(ctx, 0, 5); err != nil || len(frames) == 0 {
		t.Fatalf("the other session broke too: %v", err)
	}
	if err := victim.Dispose(); err != nil {
		t.Error(err)
	}
	if err := victim.Dispose(); err != nil {
		t.Error("second Dispose:", err)
	}
}

func TestBadInput(t *testing.T) {
	needTool(t, "lldb-vscode", "")
	ctx := context.Background()
	t.Run("program not found", func(t *testing.T) {
		_, err := newBackend(t, KindLLDB).Launch(ctx, debugger.LaunchSpec{Program: "/no/such/program"})
		if !errors.Is(err, ErrNoTarget) {
			t.Errorf("err = %v, want ErrNoTarget", err)
		}
	})
	t.Run("unknown pid", func(t *testing.T) {
		_, err := newBackend(t, KindLLDB).Attach(ctx, debugger.AttachSpec{Pid: 1 << 22})
		if !errors.Is(err, ErrNoTarget) {
			t.Errorf("err = %v, want ErrNoTarget", err)
		}
	})
	t.Run("before start", func(t *testing.T) {
		b := newBackend(t, KindLLDB)
		if _, err := b.Stack(ctx, 0, 1); !errors.Is(err, debugger.ErrNotStarted) {
			t.Errorf("stack before start: %v", err)
		}
	})

	b := newBackend(t, KindLLDB)
	st, err := b.Launch(ctx, debugger.LaunchSpec{Program: cTarget(t), Args: []string{"wait"}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != debugger.StatusRunning {
		t.Fatalf("state = %+v, want running", st)
	}
	t.Run("step while running", func(t *testing.T) {
		if _, err := b.Step(ctx, debugger.StepOver, 0, 0); !errors.Is(err, debugger.ErrRunning) {
			t.Errorf("err = %v, want ErrRunning", err)
		}
	})
	t.Run("breakpoint in nonexistent file", func(t *testing.T) {
		bp, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{File: "/no/such/file.c", Line: 3})
		if err != nil {
			t.Fatal(err)
		}
		if bp.Verified || bp.Message == "" {
			t.Errorf("breakpoint = %+v, want unverified with a message", bp)
		}
	})
	t.Run("bad breakpoint spec", func(t *testing.T) {
		if _, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{File: "x.c"}); err == nil {
			t.Error("breakpoint without a line accepted")
		}
		if err := b.RemoveBreakpoint(ctx, 99); !errors.Is(err, debugger.ErrUnknownBreakpoint) {
			t.Errorf("remove unknown: %v", err)
		}
	})
	t.Run("wait runs out", func(t *testing.T) {
		st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 300 * time.Millisecond})
		if !errors.Is(err, debugger.ErrTimeout) || st.Status != debugger.StatusRunning {
			t.Errorf("continue with a short wait: %+v, %v; want ErrTimeout, still running", st, err)
		}
	})
	t.Run("pause then raw command", func(t *testing.T) {
		st, err := b.Pause(ctx)
		if err != nil || st.Status != debugger.StatusStopped || st.LastStop.Reason != debugger.StopPause {
			t.Fatalf("pause: %+v, %v", st, err)
		}
		out, err := b.RawCommand(ctx, "thread list")
		if err != nil || !strings.Contains(out, "thread #1") {
			t.Errorf("raw command: %q, %v", out, err)
		}
	})
}

func TestMain(m *testing.M) {
	os.Exit(testutil.Main(m, func() {
		buildOnce.Range(func(_, v any) bool {
			if bt := v.(*builtTarget); bt.path != "" {
				os.RemoveAll(filepath.Dir(bt.path))
			}
			return true
		})
	}))
}
