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
	"sync/atomic"
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
	url, serverPid := startHTTP(t, dir, "load-token-0123456789")
	hc := &http.Client{Transport: bearerTransport{"load-token-0123456789"}}
	ctx := context.Background()
	segv := crashers.Build(t, "segv")
	kit := newSoakKit(t)
	var made atomic.Int64

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
				fails, n := mixed(ctx, cs, i, outputID, segv, dir, kit)
				made.Add(int64(n))
				if len(fails) > 0 {
					mu.Lock()
					failures = append(failures, fails...)
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
	t.Logf("%d calls, %d in flight, in %v (%.0f calls/s)", made.Load(), inFlight, elapsed, float64(made.Load())/elapsed.Seconds())
	byTool := map[string]int{}
	for _, f := range failures {
		if fs := strings.Fields(f); len(fs) > 2 {
			byTool[strings.TrimSuffix(fs[2], ":")]++
		}
	}
	figure(t, "load: items=%d calls=%d in_flight=%d seconds=%.1f failed=%d %v", calls, made.Load(), inFlight, elapsed.Seconds(), len(failures), byTool)
	if len(failures) > 0 {
		t.Errorf("%d of %d calls failed; first: %s", len(failures), calls, failures[0])
	}
	// Every run ended; no child of the server may still be running.
	if out, _ := exec.Command("pgrep", "-P", strconv.Itoa(serverPid)).Output(); len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("the server's children left behind: %s", out)
	}
}

// maxSessions bounds the debug and dump sessions open at once in TestLoad.
const maxSessions = 8

var sessionSlots = make(chan struct{}, maxSessions)

// mixed makes item i of the mix: one call, or, one item in ten, the open,
// use and close of a debug or a dump session. It returns the failures and
// the number of calls made.
func mixed(ctx context.Context, cs *mcp.ClientSession, i int, outputID, segv, dir string, k soakKit) (fails []string, n int) {
	call := func(name string, args map[string]any, want string, prefix bool) map[string]any {
		n++
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		var text string
		var out map[string]any
		if err == nil {
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					text += tc.Text
				}
			}
			out, _ = res.StructuredContent.(map[string]any)
		}
		ok := err == nil && strings.HasPrefix(text, want)
		if !prefix {
			ok = err == nil && !res.IsError && strings.Contains(text, want)
		}
		if !ok {
			fails = append(fails, fmt.Sprintf("call %d %s: %v %.200q", i, name, err, text))
		}
		return out
	}
	switch i % 20 {
	case 7, 17:
		// At most maxSessions debug or dump sessions at once: each starts a
		// debugger, and lldb gives its own server 6 s to answer.
		sessionSlots <- struct{}{}
		defer func() { <-sessionSlots }()
	}
	switch i % 20 {
	case 7:
		out := call("debug_attach", map[string]any{"program": k.target, "args": []string{"600"}, "breakpoints": []string{"main"}}, "", false)
		sid, _ := out["session_id"].(string)
		call("debug_stack", map[string]any{"session_id": sid}, "main", false)
		call("debug_detach", map[string]any{"session_id": sid}, "", false)
	case 17:
		out := call("dump_open", map[string]any{"core": k.core, "program": k.exe}, "", false)
		did, _ := out["session_id"].(string)
		call("dump_command", map[string]any{"session_id": did, "command": "gdb: bt"}, "crash", false)
		call("dump_close", map[string]any{"session_id": did}, "", false)
	default:
		name, args, want := mixedCall(i, outputID, segv, dir)
		call(name, args, want, true)
	}
	return fails, n
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
