package observe_test

import (
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/observe"
	"github.com/triage-dev/triage/internal/workflow/output"
)

func connect(t testing.TB) *mcptest.Client {
	return mcptest.ConnectCatalogConfig(t, &config.Config{Workflows: []string{"observe"}},
		func(svc *services.Set) []*catalog.Workflow {
			return []*catalog.Workflow{observe.Workflow(svc), output.Workflow(svc)}
		})
}

// TestObserveLoop: a tracepoint in a loop of a gcc-built program gives its
// exact hit count and first/last values, and the stored event log holds
// every hit, paged like any output.
func TestObserveLoop(t *testing.T) {
	c := connect(t)
	r := c.Call("debug_observe", map[string]any{"program": crashers.Build(t, "loop"), "args": []string{"1000"},
		"cwd": t.TempDir(), "tracepoints": []map[string]any{
			{"location": "loop.c:7", "exprs": []string{"i", "acc"}},
			{"location": "step", "exprs": []string{"acc"}, "condition": "i == 999"},
		}})
	if r.Outcome != "ok" || r.FirstLine() != "SUCCEEDED (exit 0)" {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	for _, want := range []string{
		"tracepoint 0 loop.c:7: 1000 hits; first i=0 acc=0; last i=999 acc=997002\n",
		"tracepoint 1 step if i == 999: 1 hits; first acc=997002; last acc=997002\n",
		"acc=999000\n",
	} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, r.Text)
		}
	}
	var out observe.Output
	r.Decode(t, &out)
	if out.Events != 1001 || len(out.Tracepoints) != 2 || out.Tracepoints[0].Hits != 1000 || out.Tracepoints[0].Last[1].Value != "997002" {
		t.Fatalf("output %+v", out)
	}
	g := c.Call("output_get", map[string]any{"output_id": out.EventsID, "offset": 1000, "limit": 5})
	if !strings.Contains(g.Text, `{"tp": 1, "hit": 1, "values": {"acc": "997002"}}`) {
		t.Errorf("event log's last line not there:\n%s", g.Text)
	}
	s := c.Call("output_search", map[string]any{"output_id": out.EventsID, "pattern": `"i": "500"`})
	if !strings.Contains(s.Text, `"hit": 501`) {
		t.Errorf("search of the event log:\n%s", s.Text)
	}
}

// TestObserveEmptyPlanIsCrashTriage: no tracepoints on a NULL-deref
// crasher: run's verdict, with the crash site (the NULL local, the fault
// address) from the live stop.
func TestObserveEmptyPlanIsCrashTriage(t *testing.T) {
	c := connect(t)
	r := c.Call("debug_observe", map[string]any{"program": crashers.Build(t, "nullderef"), "cwd": t.TempDir()})
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "CRASHED (SIGSEGV) in total at nullderef.c:13") {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	for _, want := range []string{
		"crash site: total at nullderef.c:13 (frame #0)\n",
		"  >   13 | \tsum += n->value;\n",
		"  locals: sum = 1, n = 0x0\n",
		"  fault address 0x0: n = 0x0\n",
		"events: 0 lines",
	} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, r.Text)
		}
	}
	var out observe.Output
	r.Decode(t, &out)
	if out.CrashSite == nil || out.CrashSite.FaultAddr != "0x0" || len(out.Backtrace) == 0 || out.Verdict.Signal != "SIGSEGV" {
		t.Fatalf("output %+v", out)
	}
}

// TestObserveBadPlans: what gdb refuses, and limits out of range, are
// usage errors naming the tracepoint.
func TestObserveBadPlans(t *testing.T) {
	c := connect(t)
	prog := crashers.Build(t, "loop")
	for _, tc := range []struct {
		tp   map[string]any
		want string
	}{
		{map[string]any{"location": "nosuch"}, `tracepoint 0 (nosuch): Function "nosuch" not defined.`},
		{map[string]any{"location": "loop.c:7", "exprs": []string{"nosuch"}}, `tracepoint 0 (loop.c:7): No symbol "nosuch" in current context.`},
		{map[string]any{"location": "step"}, ""},
		{map[string]any{"location": "step", "limit": 0}, "tracepoint 0 (step): limit 0: give a positive number of hits (left out: 10000)"},
		{map[string]any{"location": "step", "limit": -5}, "tracepoint 0 (step): limit -5: give a positive number of hits (left out: 10000)"},
		{map[string]any{"location": "step", "limit": 2000000}, "tracepoint 0 (step): limit 2000000: at most 1000000"},
		{map[string]any{"location": "step", "exprs": []string{" "}}, "tracepoint 0 (step): an expression is empty"},
	} {
		r := c.Call("debug_observe", map[string]any{"program": prog, "args": []string{"3"}, "tracepoints": []any{tc.tp}})
		if tc.want == "" {
			if r.Outcome != "ok" {
				t.Errorf("%v: %s", tc.tp, r.Text)
			}
			continue
		}
		if r.Outcome != "usage_error" || !strings.Contains(r.Text, tc.want) {
			t.Errorf("%v: outcome %q, text %q; want a usage error with %q", tc.tp, r.Outcome, r.Text, tc.want)
		}
	}
}

// TestObserveGoPanicSite: a Go nil-map panic (no fatal signal: the Go
// runtime's own SIGSEGV handling is passed through) is run's verdict, with
// the panicking line's source from the output's trace.
func TestObserveGoPanicSite(t *testing.T) {
	c := connect(t)
	exe := crashers.Build(t, "gonilmap")
	r := c.Call("debug_observe", map[string]any{"program": exe, "cwd": t.TempDir(), "project_dir": exe + ".d"})
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "CRASHED (Go panic, exit 2) in main.main at ") {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	if want := "  >    7 | \tm[\"k\"] = 1\n"; !strings.Contains(r.Text, want) {
		t.Errorf("text lacks %q:\n%s", want, r.Text)
	}
	var out observe.Output
	r.Decode(t, &out)
	if out.CrashSite == nil || out.CrashSite.Frame != -1 || len(out.CrashSite.Source) == 0 {
		t.Fatalf("crash_site %+v", out.CrashSite)
	}
}
