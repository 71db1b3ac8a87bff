package server

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// gcSettings reads the collector's target and memory limit.
func gcSettings() (percent int, limit int64) {
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

// While tool calls run the collector's target is raised and its memory
// limit set; when the last one ends both are what they were, however the
// calls overlap. Other methods leave them alone.
func TestBusyCallsRaiseTheCollectorsTarget(t *testing.T) {
	percent, limit := gcSettings()
	r := &idleRelease{}
	var inner, outer [2]any
	second := r.middleware(func(context.Context, string, mcp.Request) (mcp.Result, error) {
		p, l := gcSettings()
		inner = [2]any{p, l}
		return nil, nil
	})
	first := r.middleware(func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		second(ctx, "tools/call", req) // a call that begins and ends while this one runs
		p, l := gcSettings()
		outer = [2]any{p, l}
		return nil, nil
	})
	first(context.Background(), "tools/call", nil)
	want := [2]any{busyGCPercent, min(int64(busyMemoryLimit), limit)}
	if inner != want || outer != want {
		t.Fatalf("during the calls: %v and %v, want %v", inner, outer, want)
	}
	if p, l := gcSettings(); p != percent || l != limit {
		t.Fatalf("after the calls: GC %d%% limit %d, want %d%% and %d as before", p, l, percent, limit)
	}
	var during int
	r.middleware(func(context.Context, string, mcp.Request) (mcp.Result, error) {
		during, _ = gcSettings()
		return nil, nil
	})(context.Background(), "tools/list", nil)
	if during != percent {
		t.Fatalf("tools/list ran with GC %d%%, want the default %d%%", during, percent)
	}
}
