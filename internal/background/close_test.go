package background

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/stall"
	"github.com/triage-dev/triage/internal/testutil/hangers"
)

// TestCloseSaysWhyAndWhereStuck: Close of a manager whose job is blocked
// (a pipe nobody writes) takes its stacks before the kill, and the
// verdict says why the group was stopped (Ending) and where it was stuck;
// a job that computes is stopped with no stacks, its verdict saying why.
func TestCloseSaysWhyAndWhereStuck(t *testing.T) {
	if !stall.Supported {
		t.Skip("no stall sampling here")
	}
	m := newManager(t)
	p := hangers.PipeReader(t)
	stuck := startBlocked(t, m, p.Bin, true)
	busy := startBlocked(t, m, hangers.Spin(t).Bin, false)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("— process group stopped as triage ended; it was stuck: in main, blocked in read at piperead.c:%d", p.Line(t, "READ-PIPE"))
	if o := stuck.Outcome(); o == nil || !strings.HasPrefix(o.Verdict.Line, "INTERRUPTED") || !strings.HasSuffix(o.Verdict.Line, want) || o.Hang == nil {
		t.Errorf("the blocked job's outcome %+v, want …%q", o, want)
	}
	if o := busy.Outcome(); o == nil || !strings.HasSuffix(o.Verdict.Line, "— process group stopped as triage ended") || o.Hang != nil {
		t.Errorf("the busy job's outcome %+v", o)
	}
}

// startBlocked starts program, waits for its "ready" and, when blocked,
// for one sample of its group that shows every thread blocked.
func startBlocked(t *testing.T, m *Manager, program string, blocked bool) *Job {
	t.Helper()
	j, err := m.Start(context.Background(), capture.Request{Spec: spawn.Spec{Argv: []string{program}}, Program: program})
	if err != nil {
		t.Fatal(err)
	}
	waitLines(t, m, j.ID, 1)
	for deadline := time.Now().Add(time.Minute); blocked && !stall.Blocked(stall.Group(j.Pid), 30*time.Second); {
		if time.Now().After(deadline) {
			t.Fatalf("%s never blocked: %+v", program, stall.Group(j.Pid))
		}
		time.Sleep(10 * time.Millisecond) // polling a condition, not timing one
	}
	return j
}
