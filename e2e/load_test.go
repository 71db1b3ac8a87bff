package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// loadCalls is the number of calls TestLoad makes: TRIAGE_LOAD_CALLS, default
// 300 (CI); `make soak` runs 1000 and more.
func loadCalls() int {
	if n, err := strconv.Atoi(os.Getenv("TRIAGE_LOAD_CALLS")); err == nil && n > 0 {
		return n
	}
	return 300
}

// TestLoad sends mixed tool calls, 50 in flight, to `triage serve --http` on
// loopback: every call must succeed with the right verdict, and the server
// must leave no child process behind.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	dir := t.TempDir()
	url, serverPid := startHTTP(t, dir, "load-token")
	hc := &http.Client{Transport: bearerTransport{"load-token"}}
	ctx := context.Background()
	segv := crashers.Build(t, "segv")

	const inFlight = 50
	sessions := make([]*mcp.ClientSession, inFlight)
	for i := range sessions {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "load"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		sessions[i] = cs
	}
	// One stored output for the searches.
	first, err := sessions[0].CallTool(ctx, &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"program": "seq", "args": []string{"1", "20000"}}})
	if err != nil || first.IsError {
		t.Fatalf("seed run: %v %v", err, first)
	}
	outputID := first.StructuredContent.(map[string]any)["output_id"].(string)

	calls := loadCalls()
	work := make(chan int)
	var mu sync.Mutex
	var failures []string
	var wg sync.WaitGroup
	start := time.Now()
	for w := range inFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := sessions[w]
			for i := range work {
				name, args, want := mixedCall(i, outputID, segv, dir)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
				var text string
				if err == nil {
					for _, c := range res.Content {
						if tc, ok := c.(*mcp.TextContent); ok {
							text += tc.Text
						}
					}
				}
				if err != nil || !strings.HasPrefix(text, want) {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("call %d %s: %v %.200q", i, name, err, text))
					mu.Unlock()
				}
			}
		}()
	}
	for i := range calls {
		work <- i
	}
	close(work)
	wg.Wait()
	elapsed := time.Since(start)
	t.Logf("%d calls, %d in flight, in %v (%.0f calls/s)", calls, inFlight, elapsed, float64(calls)/elapsed.Seconds())
	if len(failures) > 0 {
		t.Errorf("%d of %d calls failed; first: %s", len(failures), calls, failures[0])
	}
	// Every run ended; no child of the server may still be running.
	if out, _ := exec.Command("pgrep", "-P", strconv.Itoa(serverPid)).Output(); len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("the server's children left behind: %s", out)
	}
}

// mixedCall returns call i of the mix and the verdict its text must start with.
func mixedCall(i int, outputID, segv, dir string) (string, map[string]any, string) {
	switch i % 5 {
	case 0:
		return "run", map[string]any{"program": "true"}, "SUCCEEDED"
	case 1:
		return "run", map[string]any{"program": segv, "cwd": dir, "core_dumps": false}, "CRASHED (SIGSEGV)"
	case 2:
		return "output_search", map[string]any{"output_id": outputID, "pattern": "^1[0-9]{3}$"}, "SEARCH"
	case 3:
		return "output_get", map[string]any{"output_id": outputID, "offset": i % 1000, "limit": 10}, "OUTPUT"
	default:
		return "session_show_defaults", map[string]any{}, "DEFAULTS"
	}
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}
