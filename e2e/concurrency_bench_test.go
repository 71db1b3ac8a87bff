package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// BenchmarkConcurrentCalls sends batches of 50 concurrent tool calls (the
// TestLoad mix: runs, a crash, searches, pages, defaults), one per client
// session, to `triage serve --http` on loopback. Each iteration is one batch;
// it reports throughput, median and p99 latency of single calls and the
// number of failed calls (target: none). Beside it, the same mix called one
// at a time on one session gives the latency of a call with nothing else in
// flight.
func BenchmarkConcurrentCalls(b *testing.B) {
	const inFlight = 50
	dir := b.TempDir()
	url, _ := startHTTP(b, dir, "bench-token-0123456789")
	hc := &http.Client{Transport: bearerTransport{"bench-token-0123456789"}}
	ctx := context.Background()
	segv := crashers.Build(b, "segv")
	sessions := make([]*mcp.ClientSession, inFlight)
	for i := range sessions {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		sessions[i] = cs
	}
	first, err := sessions[0].CallTool(ctx, &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"program": "seq", "args": []string{"1", "20000"}}})
	if err != nil || first.IsError {
		b.Fatalf("seed run: %v %v", err, first)
	}
	outputID := first.StructuredContent.(map[string]any)["output_id"].(string)
	call := func(cs *mcp.ClientSession, i int) (time.Duration, error) {
		name, args, want := mixedCall(i, outputID, segv, dir)
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		d := time.Since(start)
		if err != nil {
			return d, err
		}
		var text string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		if !strings.HasPrefix(text, want) {
			return d, fmt.Errorf("call %d %s: %.200q", i, name, text)
		}
		return d, nil
	}

	var serial, concurrent []time.Duration
	var errs int
	var firstErr error
	var busy time.Duration
	var mu sync.Mutex
	for b.Loop() {
		for i := range 5 { // one call of each kind, alone
			d, err := call(sessions[0], i)
			if err != nil {
				b.Fatal(err)
			}
			serial = append(serial, d)
		}
		var wg sync.WaitGroup
		start := time.Now()
		for i, cs := range sessions {
			wg.Go(func() {
				d, err := call(cs, i)
				mu.Lock()
				defer mu.Unlock()
				concurrent = append(concurrent, d)
				if err != nil {
					errs++
					firstErr = cmp(firstErr, err)
				}
			})
		}
		wg.Wait()
		busy += time.Since(start)
	}
	if firstErr != nil {
		b.Logf("%d calls failed; first: %v", errs, firstErr)
	}
	slices.Sort(concurrent)
	slices.Sort(serial)
	b.ReportMetric(float64(len(concurrent))/busy.Seconds(), "calls/s")
	b.ReportMetric(msOf(concurrent[len(concurrent)/2]), "p50-ms")
	b.ReportMetric(msOf(concurrent[len(concurrent)*99/100]), "p99-ms")
	b.ReportMetric(msOf(serial[len(serial)/2]), "alone-p50-ms")
	b.ReportMetric(float64(errs), "errors")
}

func cmp(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
