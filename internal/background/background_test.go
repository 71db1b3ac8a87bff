package background

import (
	"context"
	"strings"
	"testing"
	"time"

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
	j, err := m.Start(context.Background(), spawn.Spec{Argv: []string{bin, "600"}, Dir: t.TempDir()}, "sleeper", "")
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
	j, err := m.Start(context.Background(), spawn.Spec{Argv: []string{crashers.Build(t, "segv")}, Dir: t.TempDir(), CoreDumps: true}, "segv", "")
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
	if _, err := m.Get("p99"); err == nil || !strings.Contains(err.Error(), "process_list") {
		t.Errorf("unknown id: %v", err)
	}
}

func TestCloseStopsEverything(t *testing.T) {
	m := newManager(t)
	j, err := m.Start(context.Background(), spawn.Spec{Argv: []string{crashers.Build(t, "sleeper"), "600"}}, "sleeper", "")
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	if testutil.ProcessAlive(j.Pid) {
		t.Error("job survived Close")
	}
}
