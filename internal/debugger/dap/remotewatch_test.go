package dap

import (
	"context"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/sshhost"
)

// A remote session's watch is decided by a probe run on its host (with
// the host's lldb), not by this host's probe nor trusted blindly: the
// test host is a network namespace of this machine, so the two probes
// agree; where hardware watchpoints are not delivered the watch is
// emulated there, says so naming the host, and stops at the writing line.
func TestRemoteWatchProbedOnTheHost(t *testing.T) {
	b, h := newRemoteBackend(t)
	rprog := h.Put(t, build(t, "watch", "gcc", "-g", "-O0", "watch.c"), "watch")
	st, err := b.Launch(context.Background(), debugger.LaunchSpec{Program: rprog, SSHHost: h.Name,
		Breakpoints: []debugger.BreakpointSpec{{Function: "main"}}})
	if err != nil {
		t.Fatal(err)
	}
	mustStop(t, b, st, debugger.StopBreakpoint)
	bp, err := b.AddBreakpoint(context.Background(), debugger.BreakpointSpec{Watch: "counter"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(bp.Via, "not probed") {
		t.Fatalf("the host was not probed: %s", bp.Via)
	}
	delivered, _ := spawn.HardwareWatchpoints()
	if emulated := strings.Contains(bp.Via, "not delivered on "+h.Name+" (probed there"); emulated == delivered {
		t.Fatalf("hardware watchpoints delivered here %t, via on %s %q", delivered, h.Name, bp.Via)
	}
	wantWatchDAP(t, b, bp.ID, "0", "1")
}

// newRemoteBackend is an lldb DAP backend with connections to the ssh
// test host, which it returns.
func newRemoteBackend(t *testing.T) (*Backend, *sshhost.Host) {
	t.Helper()
	needTool(t, "lldb-vscode", "lldb-16")
	h := sshhost.Get(t)
	pool := remote.NewPool(remote.Options{Config: h.Config})
	t.Cleanup(func() { pool.Close() })
	b := newBackend(t, KindLLDB)
	b.pool = pool
	return b, h
}
