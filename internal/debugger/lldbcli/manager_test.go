package lldbcli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
)

// Through the Manager, lldb's stops are counted once each although every
// command re-reports the stop (sameStop), and the frames a call asked for
// are the last stop's.
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
	for hit := 1; hit <= 2; hit++ {
		if hit == 2 {
			if st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 20 * time.Second}); err != nil || st.Status != debugger.StatusStopped {
				t.Fatalf("continue: %+v %v", st, err)
			}
		}
		for range 2 { // every command re-reports the stop: still one hit
			if _, err := b.Stack(ctx, 0, 5); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Variables(ctx, debugger.VariablesRequest{}); err != nil {
				t.Fatal(err)
			}
		}
		o := m.Overviews(ctx)
		if len(o) != 1 {
			t.Fatalf("overviews: %+v", o)
		}
		if f := o[0].Frames; len(f) < 2 || f[0].Function != "add" || !strings.HasSuffix(f[0].File, "target.c") || f[0].Line != 9 || f[1].Function != "main" {
			t.Errorf("stop %d: frames %+v", hit, f)
		}
		if bps := o[0].Breakpoints; len(bps) != 1 || !bps[0].Verified || bps[0].Hits != hit {
			t.Errorf("stop %d: breakpoints %+v", hit, bps)
		}
	}
}
