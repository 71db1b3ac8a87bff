//go:build linux && (amd64 || arm64)

package stall

import (
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil/hangers"
)

// BenchmarkGroup samples a group of 64 threads all blocked in
// pthread_cond_wait: the worst case, where every thread's syscall and
// fd are read. "core-%" is the cost of one sample a second as a share of
// one core (the bound: 1%).
func BenchmarkGroup(b *testing.B) {
	pid := startB(b, hangers.Sleepers(b, 64).Bin)
	until(b, pid, "blocked", blockedFor(30*time.Second))
	start := time.Now()
	for b.Loop() {
		if ts := Group(pid); len(ts) != 64 {
			b.Fatalf("%d threads, want 64", len(ts))
		}
	}
	per := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(per)/float64(DefaultEvery)*100, "core-%")
}

// BenchmarkGroupBusy samples a running program: the common case, decided
// by the leader's own threads without listing every process.
func BenchmarkGroupBusy(b *testing.B) {
	pid := startB(b, hangers.Spin(b).Bin)
	until(b, pid, "running", some(func(t Thread) bool { return t.Kind == Running }))
	start := time.Now()
	for b.Loop() {
		Group(pid)
	}
	per := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(per)/float64(DefaultEvery)*100, "core-%")
}
