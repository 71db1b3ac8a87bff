package dap

import (
	"context"
	"testing"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/debugtest"
)

// TestPauseAmidLogpointHits: under both lldb adapters, a pause while a
// logpoint on a hot loop is hit again and again stops the target, says it
// paused, and the target stays stopped: its stack can be read. The
// adapter's own pause request, meeting lldb inside a logpoint's callback,
// used to fail ("Process is not running"), be lost, or hang the adapter.
// After it, the target runs on and logs again.
func TestPauseAmidLogpointHits(t *testing.T) {
	prog := crashers.Build(t, "loop")
	ctx := context.Background()
	for _, ad := range lldbAdapters(t) {
		t.Run(ad.name, func(t *testing.T) {
			for round := range 3 {
				b := newLLDBBackend(t, ad, debugger.Config{})
				if _, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog, Args: []string{"100000000"}, StopOnEntry: true}); err != nil {
					t.Fatal(err)
				}
				if _, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{File: "loop.c", Line: 7, LogMessage: "{i}"}); err != nil {
					t.Fatal(err)
				}
				debugtest.RunUntilLogged(t, b)
				debugtest.PauseAmidHits(t, b, round)
				if frames, err := b.Stack(ctx, 0, 5); err != nil || len(frames) == 0 {
					t.Fatalf("round %d: the stack after the pause: %v, %v", round, frames, err)
				}
				// The target goes on from the pause: it runs, and logs.
				b.Logpoints().TakeNew()
				debugtest.RunUntilLogged(t, b)
				b.Dispose()
			}
		})
	}
}
