package server

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// TestHTTPDisconnectCancelsTheCall: a client that closes its connection
// while its run is going, without a notifications/cancelled, ends the run:
// the program is killed, not left to run to its end. With tokens too: the
// cancellation acts as the client's identity, whose session it is.
func TestHTTPDisconnectCancelsTheCall(t *testing.T) {
	t.Run("no token", func(t *testing.T) { disconnectMidRun(t, HTTPOptions{}, "") })
	t.Run("tokens", func(t *testing.T) {
		disconnectMidRun(t, HTTPOptions{Token: "alice-token-0123456", Tokens: []string{"bob-token-0123456"}}, "bob-token-0123456")
	})
}

func disconnectMidRun(t *testing.T, o HTTPOptions, token string) {
	addr := serveHTTPFor(t, o)
	url := "http://" + addr + "/"
	code, sid := mcpPost(t, url, token, "", initializeBody)
	if code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %q", code, sid)
	}
	mcpPost(t, url, token, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	// The program says its pid through a FIFO, so the test waits for it
	// to be running rather than for a time.
	fifo := filepath.Join(t.TempDir(), "pid")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	call := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run","arguments":{"program":"sh","args":["-c","echo $$ > %s; exec sleep 120"],"timeout_s":300}}}`, fifo)
	ctx, disconnect := context.WithCancel(context.Background())
	defer disconnect()
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(call))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()

	pidc := make(chan int, 1)
	go func() {
		b, _ := os.ReadFile(fifo) // blocks until the program writes
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		pidc <- pid
	}()
	var pid int
	select {
	case pid = <-pidc:
	case <-time.After(30 * time.Second): // a failure bound only
		t.Fatal("the program never started")
	}
	if pid <= 0 {
		t.Fatalf("pid %d", pid)
	}
	disconnect()
	start := time.Now()
	wctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if !spawn.WaitExited(wctx, pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the program (pid %d) still runs 20 s after its client disconnected", pid)
	}
	t.Logf("ended %v after the disconnect", time.Since(start))
}
