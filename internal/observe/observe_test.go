package observe

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/verdict"
)

func run(t *testing.T, name string, args []string, tps ...Tracepoint) (*Report, string, error) {
	t.Helper()
	prog := crashers.Build(t, name)
	var events, output bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	r, err := Run(ctx, Spec{Program: prog, Args: args, Tracepoints: tps, ProjectDir: filepath.Dir(prog),
		Events: &events, Output: &output})
	if err != nil {
		return nil, "", err
	}
	t.Logf("output:\n%s", output.String())
	return r, events.String(), nil
}

func valuesText(vs []Value) string {
	var parts []string
	for _, v := range vs {
		parts = append(parts, v.Expr+"="+v.Value)
	}
	return strings.Join(parts, " ")
}

func TestLoopHitsFirstAndLast(t *testing.T) {
	r, events, err := run(t, "loop", []string{"500"},
		Tracepoint{Location: "loop.c:7", Exprs: []string{"i", "acc"}},
		Tracepoint{Location: "step", Exprs: []string{"i"}, Condition: "i % 100 == 0"},
		Tracepoint{Location: "loop.c:7", Exprs: []string{"acc"}, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict.Status != verdict.StatusSuccess || r.Result.ExitCode != 0 {
		t.Errorf("verdict %q (exit %d), want success", r.Verdict.Line, r.Result.ExitCode)
	}
	want := []struct {
		hits        int
		first, last string
		limit       bool
	}{
		{500, "i=0 acc=0", "i=499 acc=248502", false},
		{5, "i=0", "i=400", false},
		{3, "acc=0", "acc=2", true},
	}
	for i, w := range want {
		h := r.Tracepoints[i]
		if h.Hits != w.hits || valuesText(h.First) != w.first || valuesText(h.Last) != w.last || h.LimitReached != w.limit {
			t.Errorf("tracepoint %d: %d hits, first %q, last %q, limit reached %v; want %d, %q, %q, %v",
				i, h.Hits, valuesText(h.First), valuesText(h.Last), h.LimitReached, w.hits, w.first, w.last, w.limit)
		}
	}
	if lines := strings.Count(events, "\n"); lines != 508 || r.Events != 508 {
		t.Errorf("event log: %d lines, %d events; want 508", lines, r.Events)
	}
	if !strings.HasPrefix(events, `{"tp": 0, "hit": 1, "values": {"i": "0", "acc": "0"}}`) {
		t.Errorf("event log starts %q", events[:min(len(events), 200)])
	}
}

func TestEmptyPlanIsCrashTriage(t *testing.T) {
	r, events, err := run(t, "nullderef", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict.Status != verdict.StatusCrash || r.Result.SignalName != "SIGSEGV" {
		t.Fatalf("verdict %q, want a SIGSEGV crash", r.Verdict.Line)
	}
	if !strings.Contains(r.Verdict.Line, "total at nullderef.c:13") {
		t.Errorf("verdict line %q does not name total at nullderef.c:13", r.Verdict.Line)
	}
	if r.Trace == nil || r.Trace.Site == nil {
		t.Fatalf("no crash site: %+v", r.Trace)
	}
	s := r.Trace.Site
	if s.Function != "total" || s.Line != 13 || s.FaultAddr != "0x0" || len(s.Source) == 0 {
		t.Errorf("site %s at line %d, fault %q, %d source lines; want total, 13, 0x0, source", s.Function, s.Line, s.FaultAddr, len(s.Source))
	}
	var null bool
	for _, v := range s.Locals {
		null = null || v.Name == "n" && strings.Contains(v.Value, "0x0")
	}
	if !null {
		t.Errorf("locals %+v: want n = 0x0", s.Locals)
	}
	if events != "" || r.Events != 0 {
		t.Errorf("empty plan wrote events: %q", events)
	}
}

func TestBadPlans(t *testing.T) {
	for _, c := range []struct {
		name string
		tp   Tracepoint
		want string
	}{
		{"unknown location", Tracepoint{Location: "no_such_function"}, `tracepoint 0 (no_such_function): Function "no_such_function" not defined`},
		{"unknown line", Tracepoint{Location: "nosuch.c:3"}, `tracepoint 0 (nosuch.c:3): No source file named nosuch.c`},
		{"bad expression", Tracepoint{Location: "loop.c:7", Exprs: []string{"no_such_var"}}, `tracepoint 0 (loop.c:7): No symbol "no_such_var" in current context`},
		{"bad condition", Tracepoint{Location: "loop.c:7", Condition: "i +"}, `tracepoint 0 (loop.c:7): A syntax error`},
		{"condition failing at a hit", Tracepoint{Location: "step", Condition: "*(int *)0 == 1"}, `tracepoint 0 (step): condition *(int *)0 == 1: Cannot access memory at address 0x0`},
		{"negative limit", Tracepoint{Location: "step", Limit: -1}, `tracepoint 0 (step): limit -1: give a positive number of hits`},
		{"empty location", Tracepoint{}, `tracepoint 0: location is empty`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := run(t, "loop", []string{"3"}, c.tp)
			if err == nil || !strings.Contains(err.Error(), c.want) || !fault.Is(err, fault.KindUsage) {
				t.Errorf("error %v (kind %v), want a usage error with %q", err, fault.KindOf(err), c.want)
			}
		})
	}
}

// TestTimeoutKeepsHits: a run cut short by its timeout is a TIMED OUT
// verdict with the hits recorded until then, and leaves no process behind
// (TestMain checks). The limit leaves gdb's start-up, seconds on a loaded
// machine, room to reach the first hits.
func TestTimeoutKeepsHits(t *testing.T) {
	prog := crashers.Build(t, "loop")
	var events bytes.Buffer
	r, err := Run(context.Background(), Spec{Program: prog, Args: []string{"100000000"}, Timeout: 10 * time.Second,
		Tracepoints: []Tracepoint{{Location: "step", Exprs: []string{"i"}, Limit: MaxLimit}}, Events: &events})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict.Status != verdict.StatusTimeout {
		t.Errorf("verdict %q, want a timeout", r.Verdict.Line)
	}
	h := r.Tracepoints[0]
	if h.Hits == 0 || h.Hits != r.Events || strings.Count(events.String(), "\n") != h.Hits || h.LimitReached {
		t.Errorf("%d hits, %d events, %d lines", h.Hits, r.Events, strings.Count(events.String(), "\n"))
	}
	if len(h.First) != 1 || h.First[0].Value != "0" {
		t.Errorf("first %+v", h.First)
	}
}

// TestArgumentsAsGiven: the program gets its arguments as given, nothing
// expanded or quoted by the shell gdb starts it with.
func TestArgumentsAsGiven(t *testing.T) {
	prog := crashers.Build(t, "exitwith")
	line := `a  b $HOME "q" 'q' \x * ` + "`id`"
	var output bytes.Buffer
	r, err := Run(context.Background(), Spec{Program: prog, Args: []string{"3", line}, Output: &output,
		Env: map[string]string{"SHELL": "/bin/fish"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Result.ExitCode != 3 || r.Verdict.Status != verdict.StatusFailure {
		t.Errorf("verdict %q, want exit 3", r.Verdict.Line)
	}
	// A line of its own: gdb's messages may come before or after it.
	if !slices.Contains(strings.Split(output.String(), "\n"), line) {
		t.Errorf("output lacks %q:\n%s", line, output.String())
	}
}
