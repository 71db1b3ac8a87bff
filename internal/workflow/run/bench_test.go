package run_test

import (
	"testing"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
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
