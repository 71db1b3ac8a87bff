package observe_test

import (
	"bytes"
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/toolpath"
	"github.com/triage-dev/triage/internal/workflow/observe"
)

// BenchmarkObserve10000: debug_observe through MCP with a tracepoint hit
// 10,000 times in a loop (two values a hit, the event log stored), against
// the same gdb doing it natively with dprintf, alternated; each run's log
// must be complete. Beside the wall times, the CPU time each costs (gdb,
// the program and, for debug_observe, this process: the server is in it):
// on a loaded machine wall times swing by 2× between runs, CPU times less.
func BenchmarkObserve10000(b *testing.B) {
	gdb, err := toolpath.GDB.Find()
	if err != nil {
		b.Fatal(err)
	}
	prog := crashers.Build(b, "loop")
	c := connect(b)
	observed := func() (time.Duration, time.Duration) {
		cpu0, start := cpuTime(syscall.RUSAGE_SELF)+cpuTime(syscall.RUSAGE_CHILDREN), time.Now()
		r := c.Call("debug_observe", map[string]any{"program": prog, "tracepoints": []map[string]any{
			{"location": "loop.c:7", "exprs": []string{"i", "acc"}}}})
		d, cpu := time.Since(start), cpuTime(syscall.RUSAGE_SELF)+cpuTime(syscall.RUSAGE_CHILDREN)-cpu0
		var out observe.Output
		r.Decode(b, &out)
		if r.Outcome != "ok" || out.Events != 10000 || len(out.Tracepoints) != 1 || out.Tracepoints[0].Hits != 10000 {
			b.Fatalf("outcome %q, %d events:\n%s", r.Outcome, out.Events, r.Text)
		}
		return d, cpu
	}
	native := func() (time.Duration, time.Duration) {
		var out bytes.Buffer
		cpu0, start := cpuTime(syscall.RUSAGE_CHILDREN), time.Now()
		res, err := spawn.Run(context.Background(), spawn.Spec{Stdout: &out, Argv: []string{gdb, "-nx", "-batch", "-q",
			"-iex", "set debuginfod enabled off", "-ex", `dprintf loop.c:7,"i=%d acc=%ld\n",i,acc`, "-ex", "run", prog}})
		d, cpu := time.Since(start), cpuTime(syscall.RUSAGE_CHILDREN)-cpu0
		if err != nil || !res.Success() || bytes.Count(out.Bytes(), []byte("i=")) != 10000 {
			b.Fatalf("gdb dprintf: %v %v; %d lines", err, res, bytes.Count(out.Bytes(), []byte("\n")))
		}
		return d, cpu
	}
	var obs, nat, obsCPU, natCPU []time.Duration
	for b.Loop() {
		d, cpu := observed()
		obs, obsCPU = append(obs, d), append(obsCPU, cpu)
		d, cpu = native()
		nat, natCPU = append(nat, d), append(natCPU, cpu)
	}
	mo, mn := testutil.Median(obs), testutil.Median(nat)
	b.ReportMetric(mo.Seconds(), "observe-s")
	b.ReportMetric(mn.Seconds(), "dprintf-s")
	b.ReportMetric(float64(mo)/float64(mn), "ratio")
	co, cn := testutil.Median(obsCPU), testutil.Median(natCPU)
	b.ReportMetric(co.Seconds(), "observe-cpu-s")
	b.ReportMetric(cn.Seconds(), "dprintf-cpu-s")
	b.ReportMetric(float64(co)/float64(cn), "cpu-ratio")
}

// cpuTime is the user and system time of who (RUSAGE_SELF or, for the
// children waited for, RUSAGE_CHILDREN).
func cpuTime(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
