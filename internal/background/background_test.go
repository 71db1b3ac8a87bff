package background

import (
	"context"
	"github.com/triage-dev/triage/internal/capture"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/identity"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/verdict"
)

func newManager(t *testing.T) *Manager {
	s, err := store.Open(context.Background(), ":memory:", store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := New(s, 4096)
	t.Cleanup(func() { m.Close(); s.Close() })
	return m
}

// waitLines waits (long-polling Output) until the job has printed n lines.
func waitLines(t *testing.T, m *Manager, id string, n int) store.Page {
	t.Helper()
	for range 50 {
		p, err := m.Output(context.Background(), id, 0, 100, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if p.TotalLines >= n {
			return p
		}
	}
	t.Fatalf("job %s never printed %d lines", id, n)
	return store.Page{}
}

func TestStartOutputStop(t *testing.T) {
	m := newManager(t)
	bin := crashers.Build(t, "sleeper")
	j, err := m.Start(context.Background(), capture.Request{Spec: spawn.Spec{Argv: []string{bin, "600"}, Dir: t.TempDir()}, Program: "sleeper"})
	if err != nil {
		t.Fatal(err)
	}
	p := waitLines(t, m, j.ID, 1)
	if p.Lines[0] != "ready" {
		t.Fatalf("output = %q", p.Lines)
	}
	if p, err := m.Output(context.Background(), j.ID, 1, 10, 0); err != nil || len(p.Lines) != 0 {
		t.Errorf("reading past the cursor of a live job: %+v %v", p, err)
	}
	if j.Outcome() != nil {
		t.Fatal("job ended early")
	}
	got, err := m.Stop(context.Background(), j.ID, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	o := got.Outcome()
	if o == nil || o.Verdict.Status != verdict.StatusInterrupted || !o.Result.Cancelled {
		t.Fatalf("after stop: %+v", o)
	}
	if testutil.ProcessAlive(j.Pid) {
		t.Error("process survived Stop")
	}
}

func TestCrashInBackground(t *testing.T) {
	m := newManager(t)
	j, err := m.Start(context.Background(), capture.Request{Spec: spawn.Spec{Argv: []string{crashers.Build(t, "segv")}, Dir: t.TempDir(), CoreDumps: true}, Program: "segv"})
	if err != nil {
		t.Fatal(err)
	}
	<-j.Done()
	o := j.Outcome()
	if o.Verdict.Status != verdict.StatusCrash || o.Trace == nil {
		t.Fatalf("verdict %+v trace %v", o.Verdict, o.Trace)
	}
	if !strings.Contains(o.Verdict.Line, "crash_here") {
		t.Errorf("verdict line = %q", o.Verdict.Line)
	}
	if _, err := m.Get(context.Background(), "p99"); err == nil || !strings.Contains(err.Error(), "process_list") {
		t.Errorf("unknown id: %v", err)
	}
}

func TestCloseStopsEverything(t *testing.T) {
	m := newManager(t)
	j, err := m.Start(context.Background(), capture.Request{Spec: spawn.Spec{Argv: []string{crashers.Build(t, "sleeper"), "600"}}, Program: "sleeper"})
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	if testutil.ProcessAlive(j.Pid) {
		t.Error("job survived Close")
	}
}

// TestJobsBelongToTheirIdentity: another identity cannot list, read or stop
// a job, and is told what an unknown id gets; the server's own identity can.
func TestJobsBelongToTheirIdentity(t *testing.T) {
	m := newManager(t)
	alice := identity.With(context.Background(), identity.Caller{ID: "token:a"})
	bob := identity.With(context.Background(), identity.Caller{ID: "token:b"})
	j, err := m.Start(alice, capture.Request{Spec: spawn.Spec{Argv: []string{crashers.Build(t, "sleeper"), "600"}, Dir: t.TempDir()}, Program: "sleeper"})
	if err != nil {
		t.Fatal(err)
	}
	_, errUnknown := m.Get(bob, "p99")
	for name, err := range map[string]error{
		"get":    second(m.Get(bob, j.ID)),
		"output": second(m.Output(bob, j.ID, 0, 10, 0)),
		"stop":   second(m.Stop(bob, j.ID, time.Second)),
	} {
		want := strings.ReplaceAll(errUnknown.Error(), `"p99"`, `"`+j.ID+`"`)
		if err == nil || err.Error() != want {
			t.Errorf("bob's %s of alice's job: %v, want %q", name, err, want)
		}
	}
	if l := m.List(bob); len(l) != 0 {
		t.Errorf("bob lists %d jobs", len(l))
	}
	if j.Outcome() != nil || !testutil.ProcessAlive(j.Pid) {
		t.Fatal("alice's job ended after bob's attempts")
	}
	if l := m.List(alice); len(l) != 1 {
		t.Errorf("alice lists %d jobs", len(l))
	}
	if _, err := m.Stop(context.Background(), j.ID, time.Second); err != nil {
		t.Errorf("the server's own identity stopping alice's job: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }

// A wait for output that the job's end wakes answers with the job's
// outcome: the output ends a moment before the job records how it ended.
func TestWaitWokenByTheEndSeesTheOutcome(t *testing.T) {
	m := newManager(t)
	for i := range 30 {
		j, err := m.Start(context.Background(), capture.Request{Spec: spawn.Spec{Argv: []string{"/bin/true"}, Dir: t.TempDir()}, Program: "true"})
		if err != nil {
			t.Fatal(err)
		}
		got, p, err := m.Page(context.Background(), j.ID, 0, 10, 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Entry.Finished.IsZero() && got.Outcome() == nil {
			t.Fatalf("run %d: the output has ended but the job has no outcome", i)
		}
	}
	// Read without a wait, as the job ends: the same holds.
	for i := range 10 {
		j, err := m.Start(context.Background(), capture.Request{Spec: spawn.Spec{Argv: []string{"/bin/true"}, Dir: t.TempDir()}, Program: "true"})
		if err != nil {
			t.Fatal(err)
		}
		for {
			got, p, err := m.Page(context.Background(), j.ID, 0, 10, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Entry.Finished.IsZero() {
				if got.Outcome() == nil {
					t.Fatalf("read %d without a wait: the output has ended but the job has no outcome", i)
				}
				break
			}
		}
	}
}
