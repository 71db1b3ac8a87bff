package server

import (
	"testing"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/services"
)

// BenchmarkNew measures building the server with every workflow: the part of
// cold start that grows with the catalog.
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		svc, err := services.New(&config.Config{}, nil, "bench")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := New(svc, Options{AllWorkflows: true}); err != nil {
			b.Fatal(err)
		}
	}
}
