package run_test

import (
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/sshhost"
)

// BenchmarkRunTrue is one `run /bin/true` through an in-process MCP client
// with a file-backed store: the overhead triage adds to a fork/exec.
func BenchmarkRunTrue(b *testing.B) {
	cfg := &config.Config{}
	cfg.Store.Path = b.TempDir() + "/t.db"
	c := mcptest.Connect(b, cfg)
	for b.Loop() {
		if r := c.Call("run", map[string]any{"program": "/bin/true"}); r.IsError {
			b.Fatal(r.Text)
		}
	}
}

// BenchmarkRemoteRunTrue alternates `run true` on the test host (its ssh
// connection up) with the same run here, both through an in-process MCP
// client: what running on a host adds (target: ≤ 20 ms).
func BenchmarkRemoteRunTrue(b *testing.B) {
	h := sshhost.Get(b)
	cfg := &config.Config{SSH: config.SSH{Config: h.Config}}
	cfg.Store.Path = b.TempDir() + "/t.db"
	c := mcptest.Connect(b, cfg)
	remote := map[string]any{"program": "true", "ssh_host": h.Name}
	if r := c.Call("run", remote); r.IsError {
		b.Fatal(r.Text)
	}
	var there, here []time.Duration
	for b.Loop() {
		start := time.Now()
		if r := c.Call("run", remote); r.Outcome != "ok" {
			b.Fatal(r.Text)
		}
		there = append(there, time.Since(start))
		start = time.Now()
		if r := c.Call("run", map[string]any{"program": "true"}); r.Outcome != "ok" {
			b.Fatal(r.Text)
		}
		here = append(here, time.Since(start))
	}
	mr, ml := testutil.Median(there), testutil.Median(here)
	b.ReportMetric(float64(mr.Microseconds())/1000, "remote-ms")
	b.ReportMetric(float64(ml.Microseconds())/1000, "local-ms")
	b.ReportMetric(float64((mr-ml).Microseconds())/1000, "overhead-ms")
}
