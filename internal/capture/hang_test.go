package capture

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/hangers"
	"github.com/triage-dev/triage/internal/verdict"
)

// lockedBuilder is a strings.Builder safe for the fanout's goroutine and
// the test reading it.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runUntilReady runs bin and times it out once it printed "ready".
func runUntilReady(t *testing.T, p hangers.Program) (*Outcome, string) {
	t.Helper()
	ctx := testutil.NewExpireOn("ready")
	var out lockedBuilder
	o, err := Run(ctx, Request{
		Spec:   spawn.Spec{Argv: []string{p.Bin}, Dir: p.Dir, Stdout: ctx},
		Output: &out, OutputID: "o-hang", Program: p.Bin,
	})
	if err != nil {
		t.Fatal(err)
	}
	return o, out.String()
}

func TestTimedOutRunNamesBothLockSites(t *testing.T) {
	p := hangers.ABBA(t)
	o, out := runUntilReady(t, p)
	v := o.Verdict
	want := abbaCycle(t, p)
	if v.Status != verdict.StatusTimeout || !strings.HasPrefix(v.Line, "TIMED OUT after ") || !strings.Contains(v.Line, want) {
		t.Fatalf("verdict %q, want TIMED OUT naming %q\nevidence %+v\noutput:\n%s", v.Line, want, v.Evidence, out)
	}
	// Every thread's stack is in the stored output.
	if strings.Count(out, "\nThread ") != 3 || !strings.Contains(out, "taken by gdb before the kill") {
		t.Errorf("the stored output lacks the stacks:\n%s", out)
	}
	if o.Hang == nil || len(o.Hang.Stuck) != 2 || !hasEvidence(v, "stacks") {
		t.Errorf("hang report %+v, evidence %+v", o.Hang, v.Evidence)
	}
}

// abbaCycle is how a verdict says the ABBA deadlock: each thread with the
// holder of the mutex it waits for, and the cycle.
func abbaCycle(t *testing.T, p hangers.Program) string {
	return fmt.Sprintf("deadlocked: one blocked in pthread_mutex_lock at abba.c:%d waits for a mutex held by two; "+
		"two blocked in pthread_mutex_lock at abba.c:%d waits for a mutex held by one; deadlock cycle: one → two → one",
		p.Line(t, "LOCK-B-IN-ONE"), p.Line(t, "LOCK-A-IN-TWO"))
}

// TestTimedOutThreeThreadCycle: a lock cycle of three threads is said as
// the cycle, each thread with the holder of its mutex.
func TestTimedOutThreeThreadCycle(t *testing.T) {
	t.Parallel()
	p := hangers.Cycle3(t)
	o, out := runUntilReady(t, p)
	want := fmt.Sprintf("deadlocked: one blocked in pthread_mutex_lock at cycle3.c:%d waits for a mutex held by two; "+
		"two blocked in pthread_mutex_lock at cycle3.c:%d waits for a mutex held by three; "+
		"three blocked in pthread_mutex_lock at cycle3.c:%d waits for a mutex held by one; deadlock cycle: one → two → three → one",
		p.Line(t, "LOCK-B-IN-ONE"), p.Line(t, "LOCK-C-IN-TWO"), p.Line(t, "LOCK-A-IN-THREE"))
	if v := o.Verdict; v.Status != verdict.StatusTimeout || !strings.Contains(v.Line, want) {
		t.Fatalf("verdict %q, want TIMED OUT naming %q\noutput:\n%s", v.Line, want, out)
	}
}

// TestStallHolderBlockedInRead: two threads wait for a mutex whose holder
// reads a pipe nobody writes; the stall's verdict names the holder and
// where it is, and claims no deadlock.
func TestStallHolderBlockedInRead(t *testing.T) {
	t.Parallel()
	p := hangers.HolderReads(t)
	o, out := runWatched(t, 10*time.Minute, nil, p.Bin)
	wantHung(t, o, out, "HUNG: no progress for 2s; waiting for locks: waiter (LWP ",
		fmt.Sprintf("blocked in pthread_mutex_lock at holdread.c:%d waits for a mutex held by reader, blocked in read at holdread.c:%d; waiter (LWP ",
			p.Line(t, "LOCK-HELD"), p.Line(t, "READ-HOLDING")))
	if strings.Contains(o.Verdict.Line, "deadlock") {
		t.Errorf("verdict %q claims a deadlock", o.Verdict.Line)
	}
}

func TestTimedOutGoProgramDeadlock(t *testing.T) {
	p := hangers.GoMutexes(t, 0)
	o, out := runUntilReady(t, p)
	v := o.Verdict
	for _, w := range []string{
		fmt.Sprintf("main.main blocked in sync.Mutex.Lock at main.go:%d", p.Line(t, "LOCK-B-IN-MAIN")),
		fmt.Sprintf("main.worker blocked in sync.Mutex.Lock at main.go:%d", p.Line(t, "LOCK-A-IN-WORKER")),
	} {
		if v.Status != verdict.StatusTimeout || !strings.Contains(v.Line, w) {
			t.Fatalf("verdict %q, want TIMED OUT naming %q\noutput:\n%s", v.Line, w, out)
		}
	}
	if !strings.Contains(out, "goroutine 1 ") {
		t.Errorf("the goroutine dump is not in the stored output")
	}
}

// TestCancelledRunCapturesNothing: the client cancelling is not a hang.
func TestCancelledRunCapturesNothing(t *testing.T) {
	p := hangers.ABBA(t)
	ctx, cancel := context.WithCancel(context.Background())
	ready := testutil.NewExpireOn("ready")
	go func() {
		<-ready.Done()
		cancel()
	}()
	var out lockedBuilder
	o, err := Run(ctx, Request{Spec: spawn.Spec{Argv: []string{p.Bin}, Stdout: ready}, Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	if o.Hang != nil || o.Verdict.Status != verdict.StatusInterrupted || strings.Contains(out.String(), "before the kill") {
		t.Fatalf("a cancelled run captured stacks: hang %+v, verdict %q\n%s", o.Hang, o.Verdict.Line, out.String())
	}
}

// TestStopIgnoredTermNamesStuckPlace: stopping a program that ignores
// SIGTERM takes its stacks before SIGKILL.
func TestStopIgnoredTermNamesStuckPlace(t *testing.T) {
	p := hangers.ABBA(t)
	ready := testutil.NewExpireOn("ready")
	// The shell's ignored SIGTERM is inherited by the program it runs.
	r, err := Start(context.Background(), Request{Spec: spawn.Spec{
		Argv: []string{"sh", "-c", `trap "" TERM; "$0"; echo done`, p.Bin}, Stdout: ready,
	}})
	if err != nil {
		t.Fatal(err)
	}
	<-ready.Done()
	o := r.Stop(context.Background(), 100*time.Millisecond)
	want := fmt.Sprintf("it ignored SIGTERM, deadlocked: one blocked in pthread_mutex_lock at abba.c:%d", p.Line(t, "LOCK-B-IN-ONE"))
	if o.Verdict.Status != verdict.StatusInterrupted || !strings.Contains(o.Verdict.Line, want) {
		t.Fatalf("verdict %q, want %q", o.Verdict.Line, want)
	}
}

func hasEvidence(v verdict.Verdict, kind string) bool {
	for _, e := range v.Evidence {
		if e.Kind == kind {
			return true
		}
	}
	return false
}
