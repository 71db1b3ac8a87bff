package server

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCheckAddr(t *testing.T) {
	tests := []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:7007", "", true},
		{"localhost:0", "", true},
		{"[::1]:7007", "", true},
		{"0.0.0.0:7007", "", false},
		{"0.0.0.0:7007", "secret", true},
		{"192.0.2.1:7007", "", false},
		{":7007", "secret", false},
		{"nonsense", "", false},
	}
	for _, tt := range tests {
		if err := CheckAddr(tt.addr, tt.token); (err == nil) != tt.ok {
			t.Errorf("CheckAddr(%q, token=%v) = %v, want ok=%v", tt.addr, tt.token != "", err, tt.ok)
		}
	}
}

func TestHTTPGuard(t *testing.T) {
	srv, _ := New(newServices(t, nil), Options{})
	ts := httptest.NewServer(srv.HTTPHandler(HTTPOptions{Token: "s3cret", AllowOrigins: []string{"http://localhost:3000"}}))
	defer ts.Close()
	port := ts.Listener.Addr().(*net.TCPAddr).Port
	post := func(header map[string]string) int {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		if h := header["Host"]; h != "" {
			req.Host = h
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(nil); got != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", got)
	}
	if got := post(map[string]string{"Authorization": "Bearer wrong"}); got != http.StatusUnauthorized {
		t.Errorf("wrong token: %d, want 401", got)
	}
	if got := post(map[string]string{"Authorization": "Bearer s3cret", "Origin": "https://evil.example"}); got != http.StatusForbidden {
		t.Errorf("foreign origin: %d, want 403", got)
	}
	// The server's own origin, under any loopback name: allowed. Another
	// port of this machine is another origin (another local web page), and
	// the Host header is the client's to forge: refused unless listed.
	for _, origin := range []string{fmt.Sprintf("http://localhost:%d", port), fmt.Sprintf("http://127.0.0.1:%d", port), fmt.Sprintf("http://[::1]:%d", port), "http://localhost:3000"} {
		if got := post(map[string]string{"Authorization": "Bearer s3cret", "Origin": origin}); got == http.StatusForbidden || got == http.StatusUnauthorized {
			t.Errorf("origin %s refused: %d", origin, got)
		}
	}
	for _, h := range []map[string]string{
		{"Origin": "http://localhost:3001"},
		{"Origin": "http://evil.example:" + strconv.Itoa(port), "Host": "evil.example:" + strconv.Itoa(port)},
		{"Origin": "http://localhost"},
	} {
		h["Authorization"] = "Bearer s3cret"
		if got := post(h); got != http.StatusForbidden {
			t.Errorf("origin %s (host %q): %d, want 403", h["Origin"], h["Host"], got)
		}
	}
}

func TestHTTPClientSession(t *testing.T) {
	srv, _ := New(newServices(t, nil), Options{})
	ts := httptest.NewServer(srv.HTTPHandler(HTTPOptions{Token: "tok"}))
	defer ts.Close()
	hc := &http.Client{Transport: bearer{"tok", http.DefaultTransport}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if names := listNames(t, cs); !contains(names, "doctor") {
		t.Errorf("tools over HTTP: %v", names)
	}
	if _, text := callText(t, cs, "session_set_defaults", map[string]any{"project_dir": "/src"}); !strings.Contains(text, "project_dir: /src") {
		t.Errorf("set over HTTP: %q", text)
	}
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func TestHTTPLimits(t *testing.T) {
	srv, _ := New(newServices(t, nil), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- srv.ServeHTTP(ctx, HTTPOptions{Addr: "127.0.0.1:0", MaxBodyBytes: 1 << 16, HeaderTimeout: 300 * time.Millisecond}, func(a string) { addrc <- a })
	}()
	addr := <-addrc
	defer func() { cancel(); <-done }()

	body := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 1<<17) + `"}}`
	req, _ := http.NewRequest("POST", "http://"+addr+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: %d, want 413", resp.StatusCode)
	}

	// A client that never finishes its headers is disconnected.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nX-Slow: ", addr)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 512)
	n, err := conn.Read(buf)
	if err == nil && !strings.Contains(string(buf[:n]), "408") {
		t.Errorf("slow headers: read %q, want the connection closed or a 408", buf[:n])
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Error("slow-header connection still open after 10 s")
	}
}
