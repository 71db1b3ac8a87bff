package debug_test

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/toolpath"
)

// BenchmarkLogpoint10000: an interactive logpoint (debug_breakpoint_add
// with log_message, two values a hit) on a loop hit 10,000 times, through
// MCP on the lldb backend, from the attach to the exit, against the same
// lldb doing it natively: a breakpoint command with auto-continue,
// alternated. Each run's hits must all be there: 10,000 told, the event
// log not full. Beside it, the same logpoint on the DAP backend (the
// adapter's own logMessage), for comparison only.
var hitsRE = regexp.MustCompile(`(\d+) logpoint hits? since the last call`)

func BenchmarkLogpoint10000(b *testing.B) {
	lldb, err := toolpath.LLDB.Find()
	if err != nil {
		b.Fatal(err)
	}
	prog := crashers.Build(b, "loop")
	c := mcptest.Connect(b, nil)
	logpoints := func(backend string) time.Duration {
		start := time.Now()
		if r := c.Call("debug_attach", map[string]any{"program": prog, "stop_on_entry": true, "backend": backend}); r.IsError {
			b.Fatalf("attach:\n%s", r.Text)
		}
		if r := c.Call("debug_breakpoint_add", map[string]any{"location": "loop.c:7", "log_message": "{i} {acc}"}); r.IsError {
			b.Fatalf("logpoint:\n%s", r.Text)
		}
		// A continue waits a bounded time: the next one waits on; each
		// tells the hits since the one before.
		hits := 0
		for range 20 {
			end := c.Call("debug_continue", map[string]any{"wait_s": 60})
			if m := hitsRE.FindStringSubmatch(end.Text); m != nil {
				n, _ := strconv.Atoi(m[1])
				hits += n
			}
			b.Logf("%s: %q, %d hits so far", backend, end.FirstLine(), hits)
			if strings.Contains(end.Text, "event log is full") {
				b.Fatalf("%s: the event log is full:\n%s", backend, end.Text)
			}
			if end.FirstLine() == "EXITED (code 0)" {
				break
			}
		}
		d := time.Since(start)
		if hits != 10000 {
			b.Fatalf("%s: %d logpoint hits told, want 10000", backend, hits)
		}
		if r := c.Call("debug_detach", nil); r.IsError {
			b.Fatalf("detach:\n%s", r.Text)
		}
		return d
	}
	native := func() time.Duration {
		var out bytes.Buffer
		start := time.Now()
		res, err := spawn.Run(context.Background(), spawn.Spec{Stdout: &out, Argv: []string{lldb, "-b", "-x",
			"-o", "breakpoint set -f loop.c -l 7 -G true -C 'frame variable i acc'", "-o", "run", prog}})
		d := time.Since(start)
		if err != nil || !res.Success() || bytes.Count(out.Bytes(), []byte("(int) i = ")) != 10000 {
			b.Fatalf("lldb breakpoint command: %v %v; %d hits", err, res, bytes.Count(out.Bytes(), []byte("(int) i = ")))
		}
		return d
	}
	var lp, nat, dap []time.Duration
	for b.Loop() {
		lp = append(lp, logpoints("lldb"))
		nat = append(nat, native())
		dap = append(dap, logpoints("dap"))
	}
	ml, mn := testutil.Median(lp), testutil.Median(nat)
	b.ReportMetric(ml.Seconds(), "logpoint-s")
	b.ReportMetric(mn.Seconds(), "native-s")
	b.ReportMetric(float64(ml)/float64(mn), "ratio")
	b.ReportMetric(testutil.Median(dap).Seconds(), "dap-logpoint-s")
}
