package server

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/services"
)

// BenchmarkFirstToolsList is a new process's first tools/list, which a
// cold start waits for: the server built with the default workflows, a
// client connected in memory, the list asked for and decoded.
func BenchmarkFirstToolsList(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		svc, err := services.New(&config.Config{Store: config.Store{Path: ":memory:"}}, nil, "bench")
		if err != nil {
			b.Fatal(err)
		}
		srv, err := New(svc, Options{})
		if err != nil {
			b.Fatal(err)
		}
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.MCP().Connect(ctx, st, nil)
		if err != nil {
			b.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		res, err := cs.ListTools(ctx, nil)
		if err != nil || len(res.Tools) < 20 {
			b.Fatalf("tools/list: %d tools, %v", len(res.Tools), err)
		}
		cs.Close()
		ss.Wait()
		svc.Close()
	}
}
