package dap

import (
	"context"
	"testing"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/debugtest"
)

// A remote target amid logpoint hits pauses as a local one does: the
// SIGSTOP goes through the host's connection, since the adapter's own
// pause that meets a logpoint fails or is lost there too.
func TestRemotePauseAmidLogpointHits(t *testing.T) {
	b, h := newRemoteBackend(t)
	rprog := h.Put(t, crashers.Build(t, "loop"), "loop")
	ctx := context.Background()
	if _, err := b.Launch(ctx, debugger.LaunchSpec{Program: rprog, Args: []string{"100000000"}, SSHHost: h.Name, StopOnEntry: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddBreakpoint(ctx, debugger.BreakpointSpec{File: "loop.c", Line: 7, LogMessage: "{i}"}); err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		debugtest.RunUntilLogged(t, b)
		debugtest.PauseAmidHits(t, b, round)
		if frames, err := b.Stack(ctx, 0, 5); err != nil || len(frames) == 0 {
			t.Fatalf("round %d: the stack after the pause: %v, %v", round, frames, err)
		}
		b.Logpoints().TakeNew()
	}
}
