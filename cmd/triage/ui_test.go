package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/pagetest"
)

// TestUIPrintsALoginURLThatOpensThePage: with the daemon off (as in every
// test here; e2e's TestUIShowsTheDaemonsSessions has it on), triage ui
// --no-browser serves the page itself and prints a loopback URL that logs
// in once and lands on the page, whose API then answers, and serves MCP
// to no one; cancelling ends the command with status 0.
func TestUIPrintsALoginURLThatOpensThePage(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, w := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"ui", "--no-browser", "--store", filepath.Join(t.TempDir(), "t.db")}, strings.NewReader(""), w, io.Discard)
		w.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the URL: %v", err)
	}
	go io.Copy(io.Discard, out)
	url := strings.TrimSpace(strings.TrimPrefix(line, "triage web page: "))
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(url, "/ui/login?code=") {
		t.Fatalf("printed %q", line)
	}
	c := pagetest.Browser(t, url)
	base := url[:strings.Index(url, "/ui/")]
	if resp, err := c.Get(base + "/ui/api/runs"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("runs after login: %v %v", resp.StatusCode, err)
	}
	if resp, _ := http.Get(url); resp.StatusCode != http.StatusForbidden {
		t.Errorf("the URL's second use: %d, want 403", resp.StatusCode)
	}
	// The page's listener serves MCP to no one: it would let every local
	// user run programs as this one.
	if resp, err := http.Post(base+"/", "application/json", strings.NewReader(`{}`)); err != nil {
		t.Error(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("MCP on the page's listener: %d, want 401", resp.StatusCode)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after cancel", code)
	}
}
