package lldbcli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
)

// Through the Manager, lldb's stops are counted once each although every
// command re-reports the stop (sameStop), and each stop's top frames are
// kept without any call asking for them: the Manager fetched them at the
// end of the call that stopped the target or learnt of its stop (the
// launch, a continue, a wait).
func TestManagerKeepsStopsForOverviews(t *testing.T) {
	prog := build(t)
	m := debugger.NewManager(debugger.Options{Backends: map[string]debugger.Factory{"lldb": Factory(nil)}, Dir: t.TempDir()})
	t.Cleanup(m.Close)
	ctx := context.Background()
	info, err := m.Launch(ctx, "lldb", debugger.LaunchSpec{Program: prog, Breakpoints: []debugger.BreakpointSpec{{Function: "add"}}})
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
		case 1: // the launch's stop
			st, err = b.State(), nil
		case 2:
			st, err = b.Continue(ctx, debugger.ContinueOptions{Wait: 20 * time.Second})
		case 3: // lldb tells of this stop only to the next command: a wait
			if _, err = b.Continue(ctx, debugger.ContinueOptions{}); err == nil {
				st, err = b.WaitStop(ctx, 20*time.Second)
			}
		}
		if err != nil || st.Status != debugger.StatusStopped {
			t.Fatalf("stop %d: %+v %v", hit, st, err)
		}
		o := m.Overviews(ctx)
		if len(o) != 1 {
			t.Fatalf("overviews: %+v", o)
		}
		if f := o[0].Frames; len(f) < 2 || len(f) > debugger.SeenFrames || f[0].Function != "add" || !strings.HasSuffix(f[0].File, "target.c") || f[0].Line != 9 || f[1].Function != "main" {
			t.Errorf("stop %d: frames %+v", hit, f)
		}
		for range 2 { // every command re-reports the stop: still one hit
			if _, err := b.Stack(ctx, 0, 5); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Variables(ctx, debugger.VariablesRequest{}); err != nil {
				t.Fatal(err)
			}
		}
		if bps := m.Overviews(ctx)[0].Breakpoints; len(bps) != 1 || !bps[0].Verified || bps[0].Hits != hit {
			t.Errorf("stop %d: breakpoints %+v", hit, bps)
		}
	}
}
