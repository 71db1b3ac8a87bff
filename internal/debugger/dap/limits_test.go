package dap

import (
	"context"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/debugger"
)

// Big values come back cut, with a note saying what was left out.
func TestValueLimits(t *testing.T) {
	needTool(t, "lldb-vscode", "")
	b := New(KindLLDB, debugger.Config{Dir: t.TempDir(), Limits: debugger.Limits{MaxString: 64, MaxChildren: 8, Depth: 2}})
	t.Cleanup(func() { b.Dispose() })
	ctx := context.Background()
	st, err := b.Launch(ctx, debugger.LaunchSpec{Program: cTarget(t), Breakpoints: []debugger.BreakpointSpec{{Function: "add"}}})
	if err != nil {
		t.Fatal(err)
	}
	mustStop(t, b, st, debugger.StopBreakpoint)
	frames, err := b.Stack(ctx, 0, 2)
	if err != nil || len(frames) < 2 {
		t.Fatal(frames, err)
	}
	vars, err := b.Variables(ctx, debugger.VariablesRequest{Frame: frames[1].ID})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vars {
		switch v.Name {
		case "big": // char[4096]: a long value and 4096 children
			if len(v.Value) > 64+len("…") || !strings.Contains(v.Cut, "value cut") {
				t.Errorf("big = %d bytes, cut %q", len(v.Value), v.Cut)
			}
			if len(v.Children) != 9 || !strings.Contains(v.Children[8].Cut, "8 of 4096 children shown") {
				t.Errorf("big has %d children (last %+v), want 8 and a note", len(v.Children), v.Children[len(v.Children)-1])
			}
		case "pt":
			if len(v.Children) != 2 || v.Children[0].Name != "x" || v.Children[0].Value != "3" {
				t.Errorf("pt children = %+v", v.Children)
			}
		}
	}
	shallow, _ := b.Variables(ctx, debugger.VariablesRequest{Frame: frames[1].ID, Depth: 1})
	for _, v := range shallow {
		if v.Name == "pt" && (len(v.Children) != 0 || !strings.Contains(v.Cut, "depth")) {
			t.Errorf("depth 1: pt = %+v, want no children and a depth note", v)
		}
	}
}
