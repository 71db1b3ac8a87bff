package dap

import (
	"context"
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
	if _, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{Watch: "main.recovered"}); err == nil || !strings.Contains(err.Error(), "supportsDataBreakpoints") {
		t.Errorf("watch under dlv: %v", err)
	}
}
