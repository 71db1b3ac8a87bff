package analysis

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// openCore crashes the segv crasher with core dumps on, opens its core in a
// fresh manager, and returns an Analyst over an in-memory store with the
// call that works on the session.
func openCore(t *testing.T, budget int) (*Analyst, Call) {
	t.Helper()
	nativeprojects.Need(t, "gdb")
	exe := crashers.Build(t, "segv")
	dir := t.TempDir()
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{exe}, Dir: dir, CoreDumps: true, Timeout: 30 * time.Second})
	if err != nil || !res.Signaled {
		t.Fatalf("segv: %v %v", res, err)
	}
	cores, _ := filepath.Glob(filepath.Join(dir, "core*"))
	if len(cores) == 0 {
		t.Skipf("no core file in %s: kernel.core_pattern sends cores elsewhere", dir)
	}
	m := postmortem.NewManager(postmortem.Options{WorkRoot: t.TempDir(), CommandTimeout: 30 * time.Second})
	t.Cleanup(func() { m.CloseAll() })
	st, err := store.Open(context.Background(), ":memory:", store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	o, err := Open(context.Background(), m, postmortem.Target{Core: cores[0], Program: exe}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(o.Crash, "crashed: SIGSEGV in crash_here at ") || len(o.Frames) == 0 {
		t.Errorf("first look: %q %q", o.Crash, o.Frames)
	}
	open := func(context.Context) (*store.Store, error) { return st, nil }
	return New(open, func() int { return budget }, nil), Call{Tool: "test", Session: o.Session}
}

// The cache: a second run is served from the store, force re-runs, and an
// engine error is stored but never served again.
func TestRunCache(t *testing.T) {
	a, c := openCore(t, 4096)
	ctx := context.Background()
	bt := postmortem.Route{Engine: postmortem.EngineGDB, Command: "bt", Reason: postmortem.RouteExplicit}
	first, err := a.Run(ctx, c, bt)
	if err != nil || first.Cached || first.Output.ID == "" || !strings.Contains(first.Output.Excerpt, "crash_here") {
		t.Fatalf("first bt: %+v %v", first, err)
	}
	again, err := a.Run(ctx, c, bt)
	if err != nil || !again.Cached || again.Output.ID != first.Output.ID || again.Output.Excerpt != first.Output.Excerpt {
		t.Errorf("second bt not served from the cache: %+v %v", again, err)
	}
	forced := c
	forced.Force = true
	if r, err := a.Run(ctx, forced, bt); err != nil || r.Cached || r.Output.ID == first.Output.ID {
		t.Errorf("force did not re-run: %+v %v", r, err)
	}
	bad := postmortem.Route{Engine: postmortem.EngineGDB, Command: "p nosuchsymbol", Reason: postmortem.RouteExplicit}
	for range 2 {
		if r, err := a.Run(ctx, c, bad); err != nil || r.Cached || !strings.Contains(r.Error, "No symbol") {
			t.Errorf("engine error: %+v %v", r, err)
		}
	}
	checkHistory(t, c.Session.History(), first.Output.ID)
}

// checkHistory checks the session's history of TestRunCache's commands:
// each run, cached or not, with its output.
func checkHistory(t *testing.T, h []postmortem.Command, firstID string) {
	t.Helper()
	var got []string
	for _, c := range h {
		got = append(got, fmt.Sprintf("%s %s cached=%v error=%v", c.Engine, c.Command, c.Cached, c.Error != ""))
		if c.OutputID == "" || c.At.IsZero() {
			t.Errorf("history entry without output or time: %+v", c)
		}
	}
	want := []string{"gdb bt cached=false error=false", "gdb bt cached=true error=false", "gdb bt cached=false error=false",
		"gdb p nosuchsymbol cached=false error=true", "gdb p nosuchsymbol cached=false error=true"}
	if !slices.Equal(got, want) {
		t.Errorf("history:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(h) == len(want) && (h[0].OutputID != firstID || h[1].OutputID != firstID || h[2].OutputID == firstID) {
		t.Errorf("history's outputs: %+v", h)
	}
}

// A command of several lines runs each as a command of its own, within its
// share of the budget; more lines than the budget holds is the caller's
// mistake.
func TestCommandLines(t *testing.T) {
	a, c := openCore(t, 1024)
	ctx := context.Background()
	b, err := a.Command(ctx, c, "p nosuchsymbol\n\nbt\ninfo registers", "")
	if err != nil || len(b.Results) != 3 || b.Failed != 1 || !strings.HasPrefix(b.Error, "line 1: No symbol") || b.Stopped != nil {
		t.Fatalf("three lines: %+v %v", b, err)
	}
	if regs := b.Results[2]; !regs.Output.Truncated || len(regs.Output.Excerpt) > 1024/3+200 {
		t.Errorf("info registers kept %d bytes of excerpt, more than its share: %+v", len(regs.Output.Excerpt), regs.Output)
	}
	// The line run alone was cached as the single command it is.
	one, err := a.Command(ctx, c, "bt", "")
	if err != nil || !one.Results[0].Cached || one.Results[0].Output.ID != b.Results[1].Output.ID {
		t.Errorf("bt alone: %+v %v", one, err)
	}
	if _, err := a.Command(ctx, c, strings.Repeat("bt\n", 5), ""); !fault.Is(err, fault.KindUsage) || !strings.Contains(err.Error(), "at most 4") {
		t.Errorf("five lines in a budget of four: %v", err)
	}
}

func TestProcessReport(t *testing.T) {
	a, c := openCore(t, 4096)
	r, err := a.Report(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if want := "CRASHED (SIGSEGV) in crash_here at segv.c:5, fault address 0x0"; r.Verdict != want {
		t.Errorf("verdict %q, want %q", r.Verdict, want)
	}
	if r.Kernel || r.Output.ID == "" || !strings.HasPrefix(r.Output.Excerpt, r.Verdict+"\nsignal: SIGSEGV\n") || len(r.Registers) == 0 {
		t.Errorf("report: %+v", r)
	}
	if d := Describe(c.Session); !strings.HasPrefix(d, "core "+c.Session.Target.Core+" of ") || !strings.Contains(d, "x86_64") {
		t.Errorf("Describe = %q", d)
	}
}
