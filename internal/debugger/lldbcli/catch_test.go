package lldbcli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/spawn"
)

func buildWith(t *testing.T, compiler, src string) string {
	t.Helper()
	if _, err := FindLLDB(); err != nil {
		t.Skip("lldb not found (Debian package lldb-16)")
	}
	abs, err := filepath.Abs(filepath.Join("../dap/testdata", src))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), strings.TrimSuffix(src, filepath.Ext(src)))
	var out strings.Builder
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{compiler, "-g", "-O0", "-o", bin, abs}, Combined: &out})
	if err != nil || !res.Success() {
		t.Fatalf("%s could not build %s: %v %s", compiler, src, err, out.String())
	}
	return bin
}

// A C++ throw stops in __cxa_throw, the thrower below it, before the
// catch has run.
func TestCatchCxxThrow(t *testing.T) {
	prog := buildWith(t, "g++", "throw.cpp")
	ctx := context.Background()
	b := newBackend(t)
	st, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog, Breakpoints: []debugger.BreakpointSpec{{Function: "main"}}})
	if err != nil || st.Status != debugger.StatusStopped {
		t.Fatalf("launch: %+v, %v", st, err)
	}
	bp, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{Exception: "c++"})
	if err != nil || bp.Kind != "exception" || bp.ID != 2 {
		t.Fatalf("exception breakpoint: %+v, %v", bp, err)
	}
	st, err = b.Continue(ctx, debugger.ContinueOptions{Wait: 20 * time.Second})
	if err != nil || st.LastStop.Reason != debugger.StopException || st.LastStop.Exception != "c++" || st.LastStop.Crashed() {
		t.Fatalf("continue: %+v %+v, %v", st, st.LastStop, err)
	}
	if v := debugger.VerdictOf(st, nil, b.Breakpoints()); v.Kind != debugger.VerdictException || v.Breakpoint != bp.ID {
		t.Errorf("verdict = %+v", v)
	}
	frames, err := b.Stack(ctx, 0, 10)
	if err != nil || len(frames) < 2 || !strings.Contains(frames[0].Function, "__cxa_throw") || !hasFunction(frames, "thrower") {
		t.Fatalf("stack = %+v, %v", frames, err)
	}
	if v, err := b.Evaluate(ctx, "caught", 0); err != nil || v.Value != "0" {
		t.Errorf("caught = %+v, %v: the catch ran before the stop", v, err)
	}
	if err := b.RemoveBreakpoint(ctx, bp.ID); err != nil {
		t.Fatal(err)
	}
	if st, err := b.Continue(ctx, debugger.ContinueOptions{Wait: 20 * time.Second}); err != nil || st.Status != debugger.StatusExited {
		t.Fatalf("after removal: %+v, %v", st, err)
	}
}

func hasFunction(frames []debugger.Frame, fn string) bool {
	for _, f := range frames {
		if strings.Contains(f.Function, fn) {
			return true
		}
	}
	return false
}

// Bad input is a clear error: a watch on an rvalue, an unknown kind.
func TestWatchAndCatchRefusals(t *testing.T) {
	prog := buildWith(t, "gcc", "watch.c")
	ctx := context.Background()
	b := newBackend(t)
	if _, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog, Breakpoints: []debugger.BreakpointSpec{{Function: "bump"}}}); err != nil {
		t.Fatal(err)
	}
	_, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{Watch: "counter + 1"})
	if err == nil || !strings.Contains(err.Error(), "lvalue") {
		t.Errorf("watch on an rvalue: %v", err)
	}
	_, err = b.AddBreakpoint(ctx, debugger.BreakpointSpec{Exception: "java"})
	if err == nil || !strings.Contains(err.Error(), "unknown exception kind") {
		t.Errorf("unknown kind: %v", err)
	}
	bp, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{Watch: "counter"})
	if err != nil || bp.Kind != "watch" || bp.Value != "0" {
		t.Fatalf("watch counter: %+v, %v", bp, err)
	}
	if err := b.RemoveBreakpoint(ctx, bp.ID); err != nil || len(b.Breakpoints()) != 1 {
		t.Fatalf("remove watch: %v, %+v", err, b.Breakpoints())
	}
}
