package dump_test

import (
	"context"
	"testing"

	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
)

// openCoreBench opens a segv core under gdb through the tools and warms the
// engine up.
func openCoreBench(b *testing.B) (*mcptest.Client, *postmortem.Session) {
	b.Helper()
	exe, core := makeCore(b, "segv")
	c := mcptest.Connect(b, nil)
	if r := c.Call("dump_open", map[string]any{"core": core, "program": exe}); r.IsError {
		b.Fatal(r.Text)
	}
	if r := c.Call("dump_command", map[string]any{"command": "bt"}); r.IsError {
		b.Fatal(r.Text)
	}
	s, err := c.Svc.Dumps().Get("")
	if err != nil {
		b.Fatal(err)
	}
	return c, s
}

// BenchmarkCommandCached is a dump_command served from the cache, through
// a real MCP client (target: ≤ 2 ms).
func BenchmarkCommandCached(b *testing.B) {
	c, _ := openCoreBench(b)
	args := map[string]any{"command": "bt"}
	for b.Loop() {
		if r := c.Call("dump_command", args); r.IsError || r.Out["cached"] != true {
			b.Fatalf("not cached: %s", r.Text)
		}
	}
}

// BenchmarkCommandUncached runs gdb's bt for every call (force: true), to
// compare with BenchmarkEngineDirect: the difference is what routing,
// storing and rendering add (target: ≤ 10% or ≤ 5 ms).
func BenchmarkCommandUncached(b *testing.B) {
	c, _ := openCoreBench(b)
	args := map[string]any{"command": "bt", "force": true}
	for b.Loop() {
		if r := c.Call("dump_command", args); r.IsError {
			b.Fatal(r.Text)
		}
	}
}

// BenchmarkEngineDirect is gdb's bt through the same session's REPL, with
// no tool layer.
func BenchmarkEngineDirect(b *testing.B) {
	_, s := openCoreBench(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.Exec(ctx, postmortem.EngineGDB, "bt", 0, false); err != nil {
			b.Fatal(err)
		}
	}
}
