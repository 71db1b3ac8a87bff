package server

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil/pagetest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/daemon"
)

// daemonOn serves srv as the CLI's daemon on a socket of the test's own;
// done gives ServeUnix's error once it ends, stop ends it.
func daemonOn(t *testing.T, srv *Server, o UnixOptions) (sock string, done <-chan error, stop func()) {
	t.Helper()
	sock = filepath.Join(t.TempDir(), "d.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- srv.ServeUnix(ctx, ln, o) }()
	t.Cleanup(cancel)
	return sock, errc, cancel
}

// getJSON GETs url with c into v and returns the status.
func getJSON(t *testing.T, c *http.Client, url string, v any) int {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == 200 {
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("%s: %v", url, err)
		}
	}
	return resp.StatusCode
}

// askPage sends a page request for addr over the daemon's socket.
func askPage(t *testing.T, sock, addr string) (string, error) {
	t.Helper()
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return daemon.RequestPage(context.Background(), conn, addr)
}

// The daemon serves the web page on a loopback address it is asked for
// over its socket, beside MCP on the same socket: the login URL it gives
// works once, the page shows the daemon's own state, the page stays where
// it is for later requests, a foreign Origin is refused, nothing but /ui/
// is served (no MCP, no login codes for whoever asks), and the listener
// ends with the daemon.
func TestDaemonServesThePage(t *testing.T) {
	srv, _ := New(newServices(t, &config.Config{Store: config.Store{Path: filepath.Join(t.TempDir(), "t.db")}}), Options{})
	sock, done, stop := daemonOn(t, srv, UnixOptions{})
	for _, bad := range []string{"0.0.0.0:0", "10.1.2.3:0", "nohost"} {
		if _, err := askPage(t, sock, bad); err == nil {
			t.Errorf("page on %q: served", bad)
		}
	}
	url, err := askPage(t, sock, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base, _, _ := strings.Cut(url, "/ui/login?code=")
	if !strings.HasPrefix(base, "http://127.0.0.1:") || base == url {
		t.Fatalf("login URL %q", url)
	}
	// An MCP call on the same socket: a process the page must show.
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "process_start", Arguments: map[string]any{"program": "sleep", "args": []string{"60"}}}); err != nil || res.IsError {
		t.Fatalf("process_start: %v %+v", err, res)
	}
	cs.Close()

	c := pagetest.Browser(t, url)
	resp, err := c.Get(base + "/ui/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("the daemon's page has Content-Security-Policy %q", csp)
	}
	var s struct{ Processes []struct{ ID string } }
	if code := getJSON(t, c, base+"/ui/api/sessions", &s); code != 200 || len(s.Processes) != 1 || s.Processes[0].ID != "p1" {
		t.Errorf("sessions on the daemon's page: %d %+v, want p1", code, s)
	}
	if again, err := askPage(t, sock, "127.0.0.1:0"); err != nil || !strings.HasPrefix(again, base+"/") || again == url {
		t.Errorf("a second request: %q %v, want a new code on %s", again, err, base)
	}
	if _, err := askPage(t, sock, "127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "already serves the page on") {
		t.Errorf("a request for another port: %v", err)
	}
	for path, want := range map[string]int{"/": http.StatusMethodNotAllowed, "/mcp": http.StatusNotFound, LoginCodePath: http.StatusBadRequest /* a body to the page: refused unread */} {
		resp, err := http.Post(base+path, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("POST %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
	req, _ := http.NewRequest("GET", base+"/ui/api/runs", nil)
	req.Header.Set("Origin", "http://evil.example")
	if resp, err := c.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign origin: %v %v", err, resp.StatusCode)
	}
	stop()
	if err := <-done; err != nil {
		t.Errorf("ServeUnix: %v", err)
	}
	if _, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), time.Second); err == nil {
		t.Error("the page's listener outlived the daemon")
	}
}

// An open page (a live stream) keeps an idle daemon up; once closed, the
// daemon ends.
func TestOpenPageKeepsTheDaemon(t *testing.T) {
	srv, _ := New(newServices(t, &config.Config{Store: config.Store{Path: filepath.Join(t.TempDir(), "t.db")}}), Options{})
	// Busy until the page is open; then each question is a moment the
	// daemon would have ended, but for the page.
	var busy atomic.Bool
	busy.Store(true)
	asked := make(chan struct{}, 100)
	isBusy := func() bool {
		b := busy.Load()
		if !b {
			asked <- struct{}{}
		}
		return b
	}
	sock, ended, _ := daemonOn(t, srv, UnixOptions{Idle: 20 * time.Millisecond, Busy: isBusy})
	url, err := askPage(t, sock, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base, _, _ := strings.Cut(url, "/ui/login?code=")
	c := pagetest.Browser(t, url)
	resp, err := c.Get(base + "/ui/api/events")
	if err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil || !strings.HasPrefix(line, "retry:") {
		t.Fatalf("the stream's first line: %q %v", line, err)
	}
	busy.Store(false)
	for range 3 {
		<-asked
	}
	select {
	case err := <-ended:
		t.Fatalf("ended with a page open: %v", err)
	default:
	}
	resp.Body.Close()
	if err := <-ended; err != nil {
		t.Errorf("ServeUnix: %v", err)
	}
}
