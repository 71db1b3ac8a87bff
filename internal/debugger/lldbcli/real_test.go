package lldbcli

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/spawn"
)

// The C target is shared with the dap package's tests.
const targetSrc = "../dap/testdata/target.c"

func build(t *testing.T) string {
	t.Helper()
	if _, err := FindLLDB(); err != nil {
		t.Skip("lldb not found (Debian package lldb-16)")
	}
	src, err := filepath.Abs(targetSrc)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "target")
	var out strings.Builder
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{"gcc", "-g", "-O0", "-o", bin, src}, Combined: &out})
	if err != nil || !res.Success() {
		t.Skipf("gcc (Debian package gcc) could not build the target: %v %s", err, out.String())
	}
	return bin
}

func newBackend(t *testing.T) *Backend {
	b := New(debugger.Config{Dir: t.TempDir()})
	t.Cleanup(func() { b.Dispose() })
	return b
}

func TestLaunchBreakInspectStepExit(t *testing.T) {
	prog := build(t)
	src, _ := filepath.Abs(targetSrc)
	ctx := context.Background()
	b := newBackend(t)
	st, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog,
		Breakpoints: []debugger.BreakpointSpec{{Function: "add", Condition: "b == 3"}}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != debugger.StatusStopped || st.LastStop.Reason != debugger.StopBreakpoint {
		t.Fatalf("after launch: %+v %v", st, st.LastStop)
	}
	frames, err := b.Stack(ctx, 0, 5)
	if err != nil || len(frames) < 2 || frames[0].Function != "add" || frames[1].Function != "main" {
		t.Fatalf("stack = %+v, %v", frames, err)
	}
	vars, err := b.Variables(ctx, debugger.VariablesRequest{})
	if err != nil || value(vars, "a") != "3" {
		t.Fatalf("variables = %+v, %v", vars, err)
	}
	main, err := b.Variables(ctx, debugger.VariablesRequest{Frame: frames[1].ID, Scope: "locals"})
	if err != nil || value(main, "pt") != "(x = 3, y = 4)" || !strings.Contains(cut(main, "big"), "value cut") {
		t.Fatalf("main's locals = %+v, %v", main, err)
	}
	if v, err := b.Evaluate(ctx, "a*100", 0); err != nil || v.Value != "300" || v.Type != "int" {
		t.Errorf("evaluate = %+v, %v", v, err)
	}
	if _, err := b.Evaluate(ctx, "a +* )", 0); err == nil || !strings.Contains(err.Error(), "expected expression") {
		t.Errorf("syntax error: %v", err)
	}
	if st, err := b.Step(ctx, debugger.StepOver, 0, 20*time.Second); err != nil || st.LastStop.Reason != debugger.StopStep {
		t.Fatalf("step: %+v, %v", st, err)
	}
	if err := b.RemoveBreakpoint(ctx, 1); err != nil {
		t.Fatal(err)
	}
	bp, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{File: src, Line: 24, Condition: "i == 4"})
	if err != nil || !bp.Verified {
		t.Fatalf("line breakpoint: %+v, %v", bp, err)
	}
	if st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 20 * time.Second}); err != nil || st.LastStop.Reason != debugger.StopBreakpoint {
		t.Fatalf("continue to line: %+v, %v", st, err)
	}
	if vars, _ := b.Variables(ctx, debugger.VariablesRequest{}); value(vars, "i") != "4" {
		t.Errorf("i = %q, want 4", value(vars, "i"))
	}
	pending, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{File: "/no/such/file.c", Line: 1})
	if err != nil || pending.Verified {
		t.Errorf("breakpoint in a missing file: %+v, %v", pending, err)
	}
	if err := b.RemoveBreakpoint(ctx, bp.ID); err != nil {
		t.Fatal(err)
	}
	st, err = b.Continue(ctx, debugger.ContinueOptions{Wait: 20 * time.Second})
	if err != nil || st.Status != debugger.StatusExited || *st.LastStop.ExitCode != 3 {
		t.Fatalf("to exit: %+v %v, %v", st, st.LastStop, err)
	}
	if _, err := b.Stack(ctx, 0, 1); !errors.Is(err, debugger.ErrTargetExited) {
		t.Errorf("stack after exit: %v", err)
	}
}

func value(vars []debugger.Variable, name string) string {
	for _, v := range vars {
		if v.Name == name {
			return v.Value
		}
	}
	return "<missing>"
}

func cut(vars []debugger.Variable, name string) string {
	for _, v := range vars {
		if v.Name == name {
			return v.Cut
		}
	}
	return ""
}

func TestCrashAndRunningAndDeath(t *testing.T) {
	prog := build(t)
	ctx := context.Background()
	b := newBackend(t)
	st, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog, Args: []string{"crash"}, StopOnEntry: true})
	if err != nil {
		t.Fatal(err)
	}
	st, err = b.Continue(ctx, debugger.ContinueOptions{Wait: 20 * time.Second})
	if err != nil || st.LastStop.Signal != "SIGSEGV" || !st.LastStop.Crashed() {
		t.Fatalf("crash stop: %+v %v, %v", st, st.LastStop, err)
	}
	frames, err := b.Stack(ctx, 0, 3)
	if err != nil || frames[0].Function != "crash" || frames[0].Line != 14 {
		t.Fatalf("faulting frame: %+v, %v", frames, err)
	}

	other := newBackend(t)
	if _, err := other.Launch(ctx, debugger.LaunchSpec{Program: prog, Args: []string{"wait"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Step(ctx, debugger.StepOver, 0, 0); !errors.Is(err, debugger.ErrRunning) {
		t.Errorf("step while running: %v, want ErrRunning", err)
	}
	if st, err := other.Pause(ctx); err != nil || st.Status != debugger.StatusStopped || st.LastStop.Reason != debugger.StopPause {
		t.Errorf("pause: %+v, %v", st, err)
	}

	// Kill the first session's lldb: it is dead, the other is not.
	if err := syscall.Kill(b.EnginePid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Stack(ctx, 0, 1); !errors.Is(err, debugger.ErrSessionDead) {
		t.Errorf("after killing lldb: %v, want ErrSessionDead", err)
	}
	if _, err := other.Stack(ctx, 0, 3); err != nil {
		t.Errorf("other session: %v", err)
	}
}

func TestAttachAndCore(t *testing.T) {
	prog := build(t)
	ctx := context.Background()
	// The target prints "waiting" once it is parked in main.
	pr, pw := io.Pipe()
	target, err := spawn.Start(ctx, spawn.Spec{Argv: []string{prog, "wait"}, Stdout: pw})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Stop(0)
	if line, err := bufio.NewReader(pr).ReadString('\n'); err != nil || line != "waiting\n" {
		t.Fatalf("target readiness line: %q, %v", line, err)
	}
	go io.Copy(io.Discard, pr)
	b := newBackend(t)
	st, err := b.Attach(ctx, debugger.AttachSpec{Pid: target.Pid(), Program: prog})
	if err != nil || st.Status != debugger.StatusStopped {
		t.Fatalf("attach: %+v, %v", st, err)
	}
	frames, err := b.Stack(ctx, 0, 20)
	if err != nil || !hasMain(frames) {
		t.Fatalf("attached stack: %+v, %v", frames, err)
	}
	if err := b.Detach(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := newBackend(t).Attach(ctx, debugger.AttachSpec{Pid: 1 << 22}); err == nil {
		t.Error("attach to an unknown pid succeeded")
	}

	if _, err := os.Stat("/usr/bin/gdb"); err != nil {
		t.Skip("gdb (Debian package gdb) needed to write the core file")
	}
	core := filepath.Join(t.TempDir(), "core")
	res, err := spawn.Run(ctx, spawn.Spec{Argv: []string{"gdb", "-nx", "-batch", "-ex", "run", "-ex", "generate-core-file " + core, "--args", prog, "crash"}})
	if err != nil || !res.Success() {
		t.Fatalf("gdb core: %v", err)
	}
	c := newBackend(t)
	st, err = c.LoadCore(ctx, debugger.CoreSpec{Program: prog, Core: core})
	if err != nil || st.Status != debugger.StatusStopped || st.LastStop.Signal != "SIGSEGV" {
		t.Fatalf("core: %+v %v, %v", st, st.LastStop, err)
	}
	if frames, err := c.Stack(ctx, 0, 3); err != nil || frames[0].Function != "crash" {
		t.Fatalf("core stack: %+v, %v", frames, err)
	}

	// A command lldb will not let go of (it ignores the interrupt) gets
	// lldb killed; on a core, lldb is started again and the session goes on.
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	_, err = c.RawCommand(short, "script import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(60)")
	if err == nil || !strings.Contains(err.Error(), "restarted on the core") || errors.Is(err, debugger.ErrSessionDead) {
		t.Fatalf("a stuck command on a core: %v, want lldb restarted on the core", err)
	}
	if frames, err := c.Stack(ctx, 0, 3); err != nil || frames[0].Function != "crash" {
		t.Errorf("core stack after the restart: %+v, %v", frames, err)
	}
	if st := c.State(); st.Status != debugger.StatusStopped {
		t.Errorf("state after the restart: %+v", st)
	}
}

func hasMain(frames []debugger.Frame) bool {
	for _, f := range frames {
		if f.Function == "main" {
			return true
		}
	}
	return false
}

// A wait that runs out leaves the target running and the session usable:
// WaitStop waits again, and a pause stops it.
func TestContinueWaitTimeout(t *testing.T) {
	prog := build(t)
	ctx := context.Background()
	b := newBackend(t)
	// Stop inside main first, so wherever the pause lands, main is on
	// the stack however slow the machine.
	if _, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog, Args: []string{"wait"},
		Breakpoints: []debugger.BreakpointSpec{{Function: "add"}}}); err != nil {
		t.Fatal(err)
	}
	if err := b.RemoveBreakpoint(ctx, 1); err != nil {
		t.Fatal(err)
	}
	st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 500 * time.Millisecond})
	if !errors.Is(err, debugger.ErrTimeout) || st.Status != debugger.StatusRunning {
		t.Fatalf("continue: %+v, %v; want ErrTimeout with the target running", st, err)
	}
	if st, err = b.WaitStop(ctx, 200*time.Millisecond); !errors.Is(err, debugger.ErrTimeout) || st.Status != debugger.StatusRunning {
		t.Fatalf("WaitStop: %+v, %v; want ErrTimeout with the target running", st, err)
	}
	if st, err = b.refresh(ctx); err != nil || st.Status != debugger.StatusRunning {
		t.Fatalf("session after the timeout: %+v, %v", st, err)
	}
	if st, err = b.Pause(ctx); err != nil || st.Status != debugger.StatusStopped {
		t.Fatalf("pause: %+v, %v", st, err)
	}
	if frames, err := b.Stack(ctx, 0, 30); err != nil || !hasMain(frames) {
		t.Fatalf("stack after the pause: %+v, %v (state %+v)", frames, err, b.State())
	}
}

// WaitStop returns with lldb's own stop report: a target that runs into a
// breakpoint after a continue that did not wait is stopped there.
func TestWaitStopAfterContinue(t *testing.T) {
	prog := build(t)
	ctx := context.Background()
	b := newBackend(t)
	st, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog, StopOnEntry: true})
	if err != nil || st.Status != debugger.StatusStopped || st.LastStop.Reason != debugger.StopEntry {
		t.Fatalf("launch stopped on entry: %+v %v, %v; want an entry stop", st, st.LastStop, err)
	}
	// lldb reports the same stop again to every `process status`.
	if st, err := b.WaitStop(ctx, 0); err != nil || st.LastStop.Reason != debugger.StopEntry {
		t.Fatalf("the entry stop looked at again: %+v %v, %v", st, st.LastStop, err)
	}
	if _, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{Function: "crash"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{Function: "add"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Continue(ctx, debugger.ContinueOptions{}); err != nil {
		t.Fatal(err)
	}
	st, err = b.WaitStop(ctx, 20*time.Second)
	if err != nil || st.Status != debugger.StatusStopped || st.LastStop.Reason != debugger.StopBreakpoint {
		t.Fatalf("WaitStop: %+v %v, %v; want a breakpoint stop", st, st.LastStop, err)
	}
	if again, err := b.WaitStop(ctx, 0); err != nil || again.LastStop.Reason != debugger.StopBreakpoint {
		t.Fatalf("WaitStop on a stopped target: %+v, %v", again, err)
	}
}
