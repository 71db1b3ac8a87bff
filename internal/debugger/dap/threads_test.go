package dap

import (
	"bufio"
	"context"
	"os/exec"
	"sync/atomic"
	"testing"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/testutil/hangers"
)

// counting counts the thread lists and stacks asked of a real backend.
type counting struct {
	*Backend
	threads, stacks atomic.Int32
}

func (c *counting) Threads(ctx context.Context) ([]debugger.Thread, error) {
	c.threads.Add(1)
	return c.Backend.Threads(ctx)
}

func (c *counting) Stack(ctx context.Context, thread, maxFrames int) ([]debugger.Frame, error) {
	c.stacks.Add(1)
	return c.Backend.Stack(ctx, thread, maxFrames)
}

// A stop's threads are asked of the debugger once: the stop's report and
// debug_stack's list after it share them, until the target moves.
func TestThreadListKeptPerStop(t *testing.T) {
	needTool(t, "lldb-vscode", "")
	p := hangers.ABBA(t)
	cmd := exec.Command(p.Bin)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the program said %q, not ready", line)
	}
	var c *counting
	m := debugger.NewManager(debugger.Options{Dir: t.TempDir(), Backends: map[string]debugger.Factory{
		"dap": func(cfg debugger.Config) (debugger.Backend, error) {
			c = &counting{Backend: New(KindLLDB, cfg)}
			return c, nil
		}}})
	t.Cleanup(m.Close)
	ctx := context.Background()
	info, err := m.Attach(ctx, "dap", debugger.AttachSpec{Pid: cmd.Process.Pid, Program: p.Bin, StayStopped: true})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := m.Backend(ctx, "")
	r := debugger.Report(ctx, b, info, b.State())
	if r.Threads == nil || len(r.Threads.Threads) != 3 {
		t.Fatalf("the report's threads: %+v", r.Threads)
	}
	threads, stacks := c.threads.Load(), c.stacks.Load()
	if l, err := debugger.ListThreads(ctx, b); err != nil || len(l.Threads) != 3 || l.Threads[1].State != "blocked in pthread_mutex_lock" {
		t.Fatalf("threads again: %+v, %v", l, err)
	}
	if _, err := b.Threads(ctx); err != nil {
		t.Fatal(err)
	}
	if n, s := c.threads.Load(), c.stacks.Load(); n != threads || s != stacks {
		t.Errorf("the kept threads were asked again: %d thread lists, %d stacks after %d, %d", n, s, threads, stacks)
	}
	if _, err := b.Continue(ctx, debugger.ContinueOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Pause(ctx); err != nil {
		t.Fatal(err)
	}
	if l, err := debugger.ListThreads(ctx, b); err != nil || len(l.Threads) != 3 || c.threads.Load() != threads+1 {
		t.Errorf("after a continue and a pause: %+v, %v; %d thread lists after %d", l, err, c.threads.Load(), threads)
	}
}
