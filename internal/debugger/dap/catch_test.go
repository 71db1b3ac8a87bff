package dap

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
)

// A C++ throw under lldb-vscode stops through its cpp_throw filter, in
// __cxa_throw with the thrower below, before the catch has run.
func TestCatchCxxThrowLLDBVSCode(t *testing.T) {
	needTool(t, "lldb-vscode", "lldb-16")
	needTool(t, "g++", "g++")
	prog := build(t, "throw", "g++", "-g", "-O0", "throw.cpp")
	ctx := context.Background()
	b := newBackend(t, KindLLDB)
	st, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog, Breakpoints: []debugger.BreakpointSpec{{Function: "main"}}})
	if err != nil {
		t.Fatal(err)
	}
	mustStop(t, b, st, debugger.StopBreakpoint)
	bp, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{Exception: "c++"})
	if err != nil || bp.Kind != "exception" {
		t.Fatalf("exception breakpoint: %+v, %v", bp, err)
	}
	st, err = b.Continue(ctx, debugger.ContinueOptions{Wait: 20 * time.Second})
	if err != nil || st.LastStop.Reason != debugger.StopException || st.LastStop.Exception != "c++" || st.LastStop.Crashed() {
		t.Fatalf("continue: %+v %+v, %v", st, st.LastStop, err)
	}
	frames, err := b.Stack(ctx, 0, 10)
	if err != nil || len(frames) < 2 || !strings.Contains(frames[0].Function, "__cxa_throw") || !strings.Contains(frames[1].Function, "thrower") {
		t.Fatalf("stack = %+v, %v", frames, err)
	}
	if v, err := b.Evaluate(ctx, "caught", 0); err != nil || v.Value != "0" {
		t.Errorf("caught = %+v, %v: the catch ran before the stop", v, err)
	}
}

// A Go panic under dlv stops in runtime.gopanic (dlv has no exception
// filter for it: a function breakpoint), explode in the stack, before the
// deferred recover has run.
func TestCatchGoPanicDlv(t *testing.T) {
	needTool(t, "dlv", "")
	prog := build(t, "gopanic", "go", "build", "-gcflags=all=-N -l")
	ctx := context.Background()
	b := newBackend(t, KindDlv)
	st, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog, Breakpoints: []debugger.BreakpointSpec{{Exception: "go-panic"}}})
	if err != nil {
		t.Fatal(err)
	}
	st, err = b.WaitStop(ctx, 30*time.Second)
	if err != nil || st.LastStop == nil || st.LastStop.Exception != "go-panic" || st.LastStop.Crashed() {
		t.Fatalf("launch: %+v %+v, %v", st, st.LastStop, err)
	}
	bps := b.Breakpoints()
	if len(bps) != 1 || !strings.Contains(bps[0].Via, "runtime.gopanic") {
		t.Errorf("breakpoints = %+v", bps)
	}
	frames, err := b.Stack(ctx, 0, 10)
	if err != nil || len(frames) < 2 || frames[0].Function != "runtime.gopanic" || !hasFunction(frames, "main.explode") {
		t.Fatalf("stack = %+v, %v", frames, err)
	}
	if v, err := b.Evaluate(ctx, "main.recovered", 0); err != nil || v.Value != "false" {
		t.Errorf("recovered = %+v, %v: the recover ran before the stop", v, err)
	}
	// dlv watches through the protocol's data breakpoints, which need
	// hardware watchpoints; where the host has none, the watch is refused
	// with what is missing.
	bp, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{Watch: "main.recovered"})
	if soft, _ := debugger.SoftWatchNeeded(); soft {
		if err == nil || !strings.Contains(err.Error(), "supportsDataBreakpoints") {
			t.Errorf("watch under dlv without hardware watchpoints: %v", err)
		}
		return
	}
	if err != nil || bp.Kind != "watch" {
		t.Fatalf("watch under dlv: %+v, %v", bp, err)
	}
	st, err = b.Continue(ctx, debugger.ContinueOptions{Wait: 30 * time.Second})
	if err != nil || st.LastStop == nil || st.LastStop.Watch == nil || st.LastStop.Watch.ID != bp.ID {
		t.Fatalf("continue to the recover's write: %+v %+v, %v", st, st.LastStop, err)
	}
	if v, err := b.Evaluate(ctx, "main.recovered", 0); err != nil || v.Value != "true" {
		t.Errorf("recovered at the watch stop = %+v, %v", v, err)
	}
}

// dlv names no data breakpoint in its stop: with two watches set, each stop
// is the watch whose value changed, in the order the program writes them,
// a write by the instruction right after a watched write included (dlv
// alone misses it); then the program exits.
func TestWatchUnnamedDataStopDlv(t *testing.T) {
	needTool(t, "dlv", "")
	prog := build(t, "gowatch", "go", "build", "-gcflags=all=-N -l")
	ctx := context.Background()
	b := newBackend(t, KindDlv)
	st, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog, Breakpoints: []debugger.BreakpointSpec{{Function: "main.main"}}})
	if err != nil {
		t.Fatal(err)
	}
	if st, err = b.WaitStop(ctx, 30*time.Second); err != nil || st.LastStop == nil || st.LastStop.Reason != debugger.StopBreakpoint {
		t.Fatalf("launch: %+v, %v", st, err)
	}
	ids := map[string]int{}
	soft, _ := debugger.SoftWatchNeeded()
	for _, expr := range []string{"main.first", "main.second"} {
		bp, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{Watch: expr})
		if soft {
			// No hardware watchpoints here: dlv's data breakpoints would
			// never fire, and the watch is refused saying so.
			if err == nil || !errors.Is(err, debugger.ErrUnsupported) {
				t.Fatalf("watch %s without hardware watchpoints: %+v, %v", expr, bp, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("watch %s: %v", expr, err)
		}
		ids[expr] = bp.ID
	}
	for _, want := range []struct{ expr, old, new string }{{"main.second", "0", "2"}, {"main.first", "0", "1"}, {"main.second", "2", "3"}} {
		st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 30 * time.Second})
		if err != nil || st.LastStop == nil || st.LastStop.Watch == nil {
			t.Fatalf("continue to %s's write of %s: %+v, %v", want.expr, want.new, st, err)
		}
		w := st.LastStop.Watch
		if w.ID != ids[want.expr] || w.Expr != want.expr || w.Old != want.old || w.New != want.new || len(st.LastStop.BreakpointIDs) != 1 || st.LastStop.BreakpointIDs[0] != w.ID {
			t.Errorf("stop = %+v, watch %+v; want %s (id %d) %s → %s", st.LastStop, w, want.expr, ids[want.expr], want.old, want.new)
		}
	}
	if st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 30 * time.Second}); err != nil || st.Status != debugger.StatusExited {
		t.Errorf("after the last write: %+v, %v", st, err)
	}
}
