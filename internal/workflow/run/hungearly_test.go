package run_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/stall"
	"github.com/triage-dev/triage/internal/testutil/hangers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/run"
)

// Issue 43's acceptance through the tools: a hang under a ten-minute
// timeout_s ends HUNG within stall_s and a few seconds, naming where it is
// stuck, and a stop of a deadlocked program shows its stacks.

// hungSlack is what a HUNG run may take past stall_s once its program
// is in place: up to a sample, the stacks (bounded by the hang capture),
// and a machine shared with other builds.
const hungSlack = 20 * time.Second

// TestRunStallABBAHung: run of a C program in an ABBA mutex deadlock,
// under run's default ten-minute limit, ends HUNG after stall_s naming
// both lock sites, each lock's holder and the cycle, with every thread's
// stacks.
func TestRunStallABBAHung(t *testing.T) {
	p := hangers.ABBA(t)
	c := mcptest.Connect(t, nil)
	began := time.Now()
	r := c.Call("run", map[string]any{"program": p.Bin, "stall_s": 2})
	took := time.Since(began)
	want := fmt.Sprintf("HUNG: no progress for 2s; deadlocked: one blocked in pthread_mutex_lock at abba.c:%d waits for a mutex held by two; "+
		"two blocked in pthread_mutex_lock at abba.c:%d waits for a mutex held by one; deadlock cycle: one → two → one",
		p.Line(t, "LOCK-B-IN-ONE"), p.Line(t, "LOCK-A-IN-TWO"))
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), want) {
		t.Fatalf("outcome %q, verdict %q\nwant %q…\n%s", r.Outcome, r.FirstLine(), want, r.Text)
	}
	var out run.RunOutput
	r.Decode(t, &out)
	if out.Hang == nil || len(out.Hang.Stuck) != 2 || !out.TimedOut {
		t.Errorf("hang %+v, timed_out %v", out.Hang, out.TimedOut)
	}
	if took > 2*time.Second+hungSlack {
		t.Errorf("HUNG after %s, want within stall_s 2s + %s", took, hungSlack)
	}
	t.Logf("HUNG after %s", took.Round(time.Millisecond))
}

// TestTestStallRustHung: test of a cargo crate whose test blocks on a
// std::sync::mpsc channel, under a ten-minute timeout_s, ends HUNG after
// stall_s naming the test and the line of the receive.
func TestTestStallRustHung(t *testing.T) {
	p := hangers.RustChanTest(t)
	c := mcptest.Connect(t, nil)
	began := time.Now()
	r := c.Call("test", map[string]any{"project_dir": p.Dir, "timeout_s": 600, "stall_s": 2})
	took := time.Since(began)
	want := fmt.Sprintf("lib.rs:%d", p.Line(t, "RECV-FOREVER"))
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "HUNG: no progress for 2s") ||
		!strings.Contains(r.FirstLine(), "tests::waits") || !strings.Contains(r.FirstLine(), want) {
		t.Fatalf("outcome %q, verdict %q, want HUNG in tests::waits at %s\n%s", r.Outcome, r.FirstLine(), want, r.Text)
	}
	var out run.BuildTestOutput
	r.Decode(t, &out)
	if out.Status != "timed_out" || out.Hang == nil {
		t.Errorf("status %q, hang %+v", out.Status, out.Hang)
	}
	if took > time.Minute {
		t.Errorf("HUNG after %s (cargo's build included), want far below the ten-minute limit", took)
	}
	t.Logf("%s (after %s)", r.FirstLine(), took.Round(time.Millisecond))
}

// TestProcessStopDeadlockedShowsStacks: process_stop of a program in an
// ABBA mutex deadlock takes its stacks before the kill: the verdict says
// where it was stuck, with each lock's holder, and the answer shows the
// threads' stacks.
func TestProcessStopDeadlockedShowsStacks(t *testing.T) {
	if !stall.Supported {
		t.Skip("no stall sampling here")
	}
	c := mcptest.Connect(t, nil)
	p := hangers.ABBA(t)
	id := startReady(t, c, p.Bin, true)
	began := time.Now()
	stop := c.Call("process_stop", map[string]any{"id": id})
	want := fmt.Sprintf("— process group stopped; it was stuck: deadlocked: one blocked in pthread_mutex_lock at abba.c:%d waits for a mutex held by two",
		p.Line(t, "LOCK-B-IN-ONE"))
	if !strings.HasPrefix(stop.FirstLine(), "INTERRUPTED") || !strings.Contains(stop.FirstLine(), want) ||
		!strings.Contains(stop.FirstLine(), "deadlock cycle: one → two → one") {
		t.Fatalf("verdict %q, want …%q…\n%s", stop.FirstLine(), want, stop.Text)
	}
	var out run.RunOutput
	stop.Decode(t, &out)
	if out.Hang == nil || len(out.Hang.Stuck) != 2 {
		t.Fatalf("hang %+v", out.Hang)
	}
	if !strings.Contains(stop.Text, "pthread_mutex_lock") || !strings.Contains(stop.Text, "abba.c:") {
		t.Errorf("the answer shows no stacks:\n%s", stop.Text)
	}
	if took := time.Since(began); took > hungSlack {
		t.Errorf("process_stop took %s", took)
	}
}
