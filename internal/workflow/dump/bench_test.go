package dump_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/sshhost"
)

// openCoreBench opens a segv core under gdb through the tools and warms the
// engine up.
func openCoreBench(b *testing.B) (*mcptest.Client, *postmortem.Session) {
	b.Helper()
	exe, core := makeCore(b, "segv")
	return openBench(b, mcptest.Connect(b, nil), map[string]any{"core": core, "program": exe})
}

// openBench opens the dump args name through c, warms its gdb up with a
// bt, and returns the session.
func openBench(b *testing.B, c *mcptest.Client, args map[string]any) (*mcptest.Client, *postmortem.Session) {
	b.Helper()
	if r := c.Call("dump_open", args); r.IsError {
		b.Fatal(r.Text)
	}
	if r := c.Call("dump_command", map[string]any{"command": "bt"}); r.IsError {
		b.Fatal(r.Text)
	}
	s, err := c.Svc.Dumps().Get(context.Background(), "")
	if err != nil {
		b.Fatal(err)
	}
	return c, s
}

// BenchmarkCommandCached is a dump_command served from the cache, through
// a real MCP client (target: ≤ 2 ms median).
func BenchmarkCommandCached(b *testing.B) {
	c, _ := openCoreBench(b)
	args := map[string]any{"command": "bt"}
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		if r := c.Call("dump_command", args); r.IsError || r.Out["cached"] != true {
			b.Fatalf("not cached: %s", r.Text)
		}
		times = append(times, time.Since(start))
	}
	b.ReportMetric(ms(testutil.Median(times)), "mcp-ms")
}

// BenchmarkCommandUncached alternates gdb's bt through dump_command (force:
// true, so gdb runs every time) with the same command through the session's
// REPL, with no tool layer. The difference is what routing, storing and
// rendering add (target: ≤ +10 %).
func BenchmarkCommandUncached(b *testing.B) {
	c, s := openCoreBench(b)
	alternateUncached(b, c, s, postmortem.EngineGDB, "bt")
}

// alternateUncached times command through dump_command (force: true, so the
// engine runs every time) alternating with the engine's own command through
// the session's REPL, and reports both and the difference.
func alternateUncached(b *testing.B, c *mcptest.Client, s *postmortem.Session, engine postmortem.Engine, command string) {
	ctx := context.Background()
	_, bare, _ := strings.Cut(command, ":")
	if bare == "" {
		bare = command
	}
	args := map[string]any{"command": command, "force": true}
	var viaMCP, direct []time.Duration
	for b.Loop() {
		start := time.Now()
		if r := c.Call("dump_command", args); r.IsError {
			b.Fatal(r.Text)
		}
		viaMCP = append(viaMCP, time.Since(start))
		start = time.Now()
		if _, err := s.Exec(ctx, engine, bare, 0, false); err != nil {
			b.Fatal(err)
		}
		direct = append(direct, time.Since(start))
	}
	m, d := testutil.Median(viaMCP), testutil.Median(direct)
	b.ReportMetric(ms(m), "mcp-ms")
	b.ReportMetric(ms(d), "engine-ms")
	b.ReportMetric(ms(m-d), "overhead-ms")
	b.ReportMetric(100*float64(m-d)/float64(d), "overhead-%")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkKernelCommandUncached is BenchmarkCommandUncached on the kernel
// vmcore with crash's `log`, a command that takes the engine milliseconds
// and prints tens of KB, alternated with the same command through the
// session's REPL (target: ≤ +10 % or ≤ +5 ms).
func BenchmarkKernelCommandUncached(b *testing.B) {
	v := findVmcore(b)
	need(b, "crash", "crash")
	c := mcptest.Connect(b, nil)
	if r := c.Call("dump_open", map[string]any{"vmcore": v.path, "vmlinux": v.vmlinux}); r.IsError {
		b.Fatal(r.Text)
	}
	// The first command waits for crash to finish opening the dump.
	if r := c.Call("dump_command", map[string]any{"command": "crash:log"}); r.IsError {
		b.Fatal(r.Text)
	}
	s, err := c.Svc.Dumps().Get(context.Background(), "")
	if err != nil {
		b.Fatal(err)
	}
	alternateUncached(b, c, s, postmortem.EngineCrash, "crash:log")
}

// BenchmarkRemoteCommandUncached is BenchmarkCommandUncached on a core that
// lives on the test host, read by its gdb over the host's ssh connection:
// the engine's own REPL through that connection against dump_command
// (target: ≤ +5 ms).
func BenchmarkRemoteCommandUncached(b *testing.B) {
	h := sshhost.Get(b)
	exe, core := makeCore(b, "segv")
	rexe, rcore := h.Put(b, exe, "bench-segv"), h.Put(b, core, "bench-segv.core")
	c, s := openBench(b, mcptest.Connect(b, &config.Config{SSH: config.SSH{Config: h.Config}}),
		map[string]any{"core": rcore, "program": rexe, "ssh_host": h.Name})
	alternateUncached(b, c, s, postmortem.EngineGDB, "bt")
}
