package dap

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/testutil"
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
	db := debugger.Unwrap(be).(*Backend)
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
	mm, md := testutil.Median(viaManager), testutil.Median(direct)
	b.ReportMetric(float64(mm.Microseconds())/1000, "manager-ms")
	b.ReportMetric(float64(md.Microseconds())/1000, "direct-ms")
	b.ReportMetric(float64((mm-md).Microseconds())/1000, "overhead-ms")
}

// The Manager keeps what it saw of a session, for a reader that must not
// send the debugger anything: the top frames of every stop, fetched once
// at the end of the call that stopped the target when no call asked for
// them (a wait, a continue), or when the adapter reports a stop no call
// waits for (a continue that did not wait); and one hit a stop at a
// breakpoint.
func TestManagerKeepsStopsForOverviews(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			needTool(t, map[string]string{KindLLDB: "lldb-vscode", KindDlv: "dlv"}[sc.kind], "")
			keepsStops(t, sc)
		})
	}
}

func keepsStops(t *testing.T, sc scenario) {
	changes := make(chan struct{}, 1)
	var told atomic.Int64
	m := debugger.NewManager(debugger.Options{
		Backends: map[string]debugger.Factory{"dap": Factory(sc.kind, nil)},
		Dir:      t.TempDir(),
		OnChange: func() {
			told.Add(1)
			select {
			case changes <- struct{}{}:
			default:
			}
		},
	})
	t.Cleanup(m.Close)
	ctx := context.Background()
	info, err := m.Launch(ctx, "", debugger.LaunchSpec{Program: sc.program(t), Breakpoints: []debugger.BreakpointSpec{{Function: sc.fn}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Backend(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	for hit := 1; hit <= 3; hit++ {
		var st debugger.State
		switch hit {
		case 1:
			st, err = b.WaitStop(ctx, 20*time.Second)
		case 2:
			st, err = b.Continue(ctx, debugger.ContinueOptions{Wait: 20 * time.Second})
		case 3: // nobody waits: the adapter's stopped event tells the Manager
			if st, err = b.Continue(ctx, debugger.ContinueOptions{}); err == nil {
				st, err = toldStop(t, m, b, changes, hit)
			}
		}
		if err != nil || st.Status != debugger.StatusStopped {
			t.Fatalf("stop %d: %+v %v", hit, st, err)
		}
		// No call asked for the stack: the Manager looked itself.
		o := m.Overviews(ctx)
		if len(o) != 1 {
			t.Fatalf("stop %d: overviews %+v", hit, o)
		}
		if f := o[0].Frames; len(f) < 2 || len(f) > debugger.SeenFrames || !strings.HasSuffix(f[0].Function, "add") ||
			!strings.HasSuffix(f[0].File, filepath.Base(sc.source)) || !strings.HasSuffix(f[1].Function, "main") {
			t.Errorf("stop %d: frames %+v", hit, f)
		}
		if bps := o[0].Breakpoints; len(bps) != 1 || !bps[0].Verified || bps[0].Hits != hit {
			t.Errorf("stop %d: breakpoints %+v", hit, bps)
		}
		for range 2 { // asking again is still one hit
			if _, err := b.Stack(ctx, 0, 5); err != nil {
				t.Fatal(err)
			}
		}
		if bps := m.Overviews(ctx)[0].Breakpoints; bps[0].Hits != hit {
			t.Errorf("stop %d after two stack calls: breakpoints %+v", hit, bps)
		}
	}
	before := told.Load()
	if err := m.Detach(ctx, info.ID); err != nil {
		t.Fatal(err)
	}
	if len(m.Overviews(ctx)) != 0 || told.Load() <= before || before < 4 {
		t.Errorf("after detach: %+v, %d changes told (%d before)", m.Overviews(ctx), told.Load(), before)
	}
}

// toldStop waits, change by change, for the stop number hit of the
// session and its frames, after a continue that did not wait: the stop
// comes while no call runs, so only the adapter's report through the
// Manager tells of it. Overviews is asked only once the state says
// stopped (it looks at a stop without frames itself).
func toldStop(t *testing.T, m *debugger.Manager, b debugger.Backend, changes <-chan struct{}, hit int) (debugger.State, error) {
	t.Helper()
	bound := time.After(20 * time.Second) // only ends a test that cannot pass
	for {
		if st := b.State(); st.Status != debugger.StatusRunning {
			o := m.Overviews(context.Background())
			if len(o) != 1 || st.Status != debugger.StatusStopped {
				return st, fmt.Errorf("not stopped: %+v", o)
			}
			if len(o[0].Frames) > 0 && o[0].Breakpoints[0].Hits == hit {
				return o[0].State, nil
			}
		}
		select {
		case <-changes:
		case <-bound:
			return debugger.State{}, fmt.Errorf("stop %d with its frames not told within 20 s of a continue that did not wait", hit)
		}
	}
}

// A DAP backend tells of a stop no call waits for, and of its end.
func TestBackendNotifiesStops(t *testing.T) {
	needTool(t, "lldb-vscode", "")
	b := newBackend(t, KindLLDB)
	told := make(chan struct{}, 16)
	b.NotifyChanges(func() { told <- struct{}{} })
	ctx := context.Background()
	if _, err := b.Launch(ctx, debugger.LaunchSpec{Program: cTarget(t), Breakpoints: []debugger.BreakpointSpec{{Function: "add"}}}); err != nil {
		t.Fatal(err)
	}
	for i, want := range []debugger.Status{debugger.StatusStopped, debugger.StatusStopped, debugger.StatusExited} {
		select {
		case <-told:
		case <-time.After(20 * time.Second): // only ends a test that cannot pass
			t.Fatalf("no change told (want %s): %+v", want, b.State())
		}
		if st := b.State(); st.Status != want {
			t.Fatalf("told of %+v, want %s", st, want)
		}
		if i == 1 { // the next continue runs to the end
			if err := b.RemoveBreakpoint(ctx, 1); err != nil {
				t.Fatal(err)
			}
		}
		if want == debugger.StatusStopped {
			if _, err := b.Continue(ctx, debugger.ContinueOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
}
