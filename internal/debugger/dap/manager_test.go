package dap

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/triage-dev/triage/internal/debugger"
)

func newManager(t testing.TB) *debugger.Manager {
	m := debugger.NewManager(debugger.Options{
		Backends: map[string]debugger.Factory{"dap": Factory("", nil)},
		Dir:      t.TempDir(),
	})
	t.Cleanup(m.Close)
	return m
}

// Two sessions through the Manager, one C under lldb, one Go under dlv,
// chosen by program; detaching one leaves the other alone.
func TestManagerTwoSessions(t *testing.T) {
	needTool(t, "lldb-vscode", "")
	needTool(t, "dlv", "")
	m := newManager(t)
	ctx := context.Background()
	c, err := m.Launch(ctx, "", debugger.LaunchSpec{Program: cTarget(t),
		Breakpoints: []debugger.BreakpointSpec{{Function: "add"}}})
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.Launch(ctx, "dap", debugger.LaunchSpec{Program: goTarget(t),
		Breakpoints: []debugger.BreakpointSpec{{Function: "main.add"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{c.ID, g.ID} {
		b, err := m.Backend(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 20 * time.Second})
		if st.Status != debugger.StatusStopped {
			// Already stopped at the breakpoint: Continue moved on to the
			// next hit, which is a stop too.
			t.Fatalf("%s: %+v, %v", id, st, err)
		}
		frames, err := b.Stack(ctx, 0, 3)
		if err != nil || len(frames) == 0 {
			t.Fatalf("%s stack: %v", id, err)
		}
	}
	if err := m.Detach(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Backend(context.Background(), c.ID); !errors.Is(err, debugger.ErrUnknownSession) {
		t.Errorf("detached session still there: %v", err)
	}
	b, _ := m.Backend(context.Background(), g.ID)
	if _, err := b.Stack(ctx, 0, 3); err != nil {
		t.Errorf("surviving session: %v", err)
	}
}

// BenchmarkStack alternates a stack request through the Manager and Backend
// with the same stackTrace request sent straight down the connection, so both
// see the same machine state. The difference is our overhead (target: under
// 2 ms median).
func BenchmarkStack(b *testing.B) {
	needTool(b, "lldb-vscode", "")
	m := newManager(b)
	ctx := context.Background()
	prog := cTarget(b)
	info, err := m.Launch(ctx, "", debugger.LaunchSpec{Program: prog,
		Breakpoints: []debugger.BreakpointSpec{{Function: "add"}}})
	if err != nil {
		b.Fatal(err)
	}
	be, _ := m.Backend(context.Background(), info.ID)
	if st, err := be.Continue(ctx, debugger.ContinueOptions{Wait: 20 * time.Second}); err != nil || st.Status != debugger.StatusStopped {
		b.Fatalf("not stopped: %+v %v", st, err)
	}
	db := be.(*Backend)
	thread := db.stoppedThread(ctx)
	var viaManager, direct []time.Duration
	for b.Loop() {
		start := time.Now()
		be, err := m.Backend(context.Background(), info.ID)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := be.Stack(ctx, 0, 20); err != nil {
			b.Fatal(err)
		}
		viaManager = append(viaManager, time.Since(start))
		start = time.Now()
		var body godap.StackTraceResponseBody
		if err := db.conn.Call(ctx, "stackTrace", godap.StackTraceArguments{ThreadId: thread, Levels: 20}, &body); err != nil {
			b.Fatal(err)
		}
		direct = append(direct, time.Since(start))
	}
	mm, md := medianDuration(viaManager), medianDuration(direct)
	b.ReportMetric(float64(mm.Microseconds())/1000, "manager-ms")
	b.ReportMetric(float64(md.Microseconds())/1000, "direct-ms")
	b.ReportMetric(float64((mm-md).Microseconds())/1000, "overhead-ms")
}

func medianDuration(times []time.Duration) time.Duration {
	slices.Sort(times)
	return times[len(times)/2]
}

// The Manager keeps what the calls through it saw of a session, for a
// reader that must not send the debugger anything: the top frames of the
// last stop once a call asked for them, and one hit a stop at a breakpoint.
func TestManagerKeepsStopsForOverviews(t *testing.T) {
	needTool(t, "lldb-vscode", "")
	changes := 0
	m := debugger.NewManager(debugger.Options{
		Backends: map[string]debugger.Factory{"dap": Factory("", nil)},
		Dir:      t.TempDir(),
		OnChange: func() { changes++ },
	})
	t.Cleanup(m.Close)
	ctx := context.Background()
	info, err := m.Launch(ctx, "", debugger.LaunchSpec{Program: cTarget(t), Breakpoints: []debugger.BreakpointSpec{{Function: "add"}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Backend(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	for hit := 1; hit <= 2; hit++ {
		var st debugger.State
		if hit == 1 {
			st, err = b.WaitStop(ctx, 20*time.Second)
		} else {
			st, err = b.Continue(ctx, debugger.ContinueOptions{Wait: 20 * time.Second})
		}
		if err != nil || st.Status != debugger.StatusStopped {
			t.Fatalf("stop %d: %+v %v", hit, st, err)
		}
		if o := m.Overviews(ctx); len(o) != 1 || len(o[0].Frames) != 0 {
			t.Fatalf("frames of stop %d before any call asked for them: %+v", hit, o)
		}
		for range 2 { // asking twice is still one hit
			if _, err := b.Stack(ctx, 0, 5); err != nil {
				t.Fatal(err)
			}
		}
		o := m.Overviews(ctx)[0]
		if len(o.Frames) < 2 || o.Frames[0].Function != "add" || !strings.HasSuffix(o.Frames[0].File, "target.c") || o.Frames[0].Line != 9 || o.Frames[1].Function != "main" {
			t.Errorf("stop %d: frames %+v", hit, o.Frames)
		}
		if len(o.Breakpoints) != 1 || !o.Breakpoints[0].Verified || o.Breakpoints[0].Hits != hit {
			t.Errorf("stop %d: breakpoints %+v", hit, o.Breakpoints)
		}
	}
	before := changes
	if err := m.Detach(ctx, info.ID); err != nil {
		t.Fatal(err)
	}
	if len(m.Overviews(ctx)) != 0 || changes <= before || before < 4 {
		t.Errorf("after detach: %+v, %d changes told (%d before)", m.Overviews(ctx), changes, before)
	}
}
