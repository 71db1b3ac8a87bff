package coredump

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil"
)

// BenchmarkCrashSite times what a run's verdict pays for its core: gdb's
// backtrace with the crash site (arguments, locals, source paths of the
// innermost frames, the fault address) against the backtrace alone, on the
// same real core of a gcc-built NULL-deref crasher, alternately so both
// see the same machine. Target: the site adds at most 20%.
func BenchmarkCrashSite(b *testing.B) {
	if _, err := exec.LookPath("gdb"); err != nil {
		b.Fatal("gdb not found: install the gdb package")
	}
	c, core := realCore(b, "nullderef")
	ctx := context.Background()
	timed := func(opts BacktraceOptions) time.Duration {
		start := time.Now()
		tr, err := Backtrace(ctx, c.Exe, core, opts)
		d := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if (tr.Site == nil) != opts.NoSite {
			b.Fatalf("site %+v with NoSite %v", tr.Site, opts.NoSite)
		}
		return d
	}
	var site, plain []time.Duration
	for b.Loop() {
		site = append(site, timed(BacktraceOptions{Debugger: "gdb"}))
		plain = append(plain, timed(BacktraceOptions{Debugger: "gdb", NoSite: true}))
	}
	ms, mp := testutil.Median(site), testutil.Median(plain)
	b.ReportMetric(float64(ms.Microseconds())/1000, "site-ms")
	b.ReportMetric(float64(mp.Microseconds())/1000, "backtrace-ms")
	b.ReportMetric(100*(float64(ms)/float64(mp)-1), "overhead-pct")
}
