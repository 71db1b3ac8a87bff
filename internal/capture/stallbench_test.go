package capture

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/hangers"
)

// BenchmarkStallGoTestToHung measures a Go test deadlocked from its start
// (its test binary, with the ten-minute -test.timeout alarm go test gives
// it) under a ten-minute limit: it ends HUNG naming the test, and
// "over-limit-s" is what it took past stall_s (the bound: 3 s,
// whatever timeout_s says).
func BenchmarkStallGoTestToHung(b *testing.B) {
	p := hangers.GoChanTestBinary(b)
	argv := []string{p.Bin, "-test.run", "^TestWaitsForever$", "-test.timeout", "10m", "-test.v"}
	var over time.Duration
	for b.Loop() {
		o, err := Run(context.Background(), Request{Spec: spawn.Spec{Argv: argv, Dir: p.Dir, Timeout: 10 * time.Minute}, Program: p.Bin, Stall: stallLimit})
		if err != nil {
			b.Fatal(err)
		}
		if !o.Result.Stalled || !strings.Contains(o.Verdict.Line, "TestWaitsForever") {
			b.Fatalf("verdict %q, want HUNG in TestWaitsForever", o.Verdict.Line)
		}
		over += o.Result.Duration - stallLimit
	}
	b.ReportMetric(over.Seconds()/float64(b.N), "over-limit-s")
}
