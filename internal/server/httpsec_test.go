package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// mcpPost sends one JSON-RPC message and returns the status and the session
// id the server gave.
func mcpPost(t *testing.T, url, token, session, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
}

// TestHTTPSessionIDsUnguessable: session ids are distinct and carry at
// least 128 random bits (26 base32 characters are 130 bits).
func TestHTTPSessionIDsUnguessable(t *testing.T) {
	srv, _ := New(newServices(t, nil), Options{})
	ts := httptest.NewServer(srv.HTTPHandler(HTTPOptions{}))
	defer ts.Close()
	base32 := regexp.MustCompile(`^[A-Z2-7]{26,}$`)
	seen := map[string]bool{}
	for range 64 {
		code, id := mcpPost(t, ts.URL, "", "", initializeBody)
		if code != http.StatusOK {
			t.Fatalf("initialize: %d", code)
		}
		if !base32.MatchString(id) {
			t.Fatalf("session id %q: want at least 26 base32 characters", id)
		}
		if seen[id] {
			t.Fatalf("session id %q given twice", id)
		}
		seen[id] = true
	}
}

// TestHTTPSessionBoundToToken: two clients with their own tokens; neither
// can use the other's session, a forged id is unknown, and the owner's
// session survives the attempts.
func TestHTTPSessionBoundToToken(t *testing.T) {
	srv, _ := New(newServices(t, nil), Options{})
	ts := httptest.NewServer(srv.HTTPHandler(HTTPOptions{Token: "alice-token", Tokens: []string{"bob-token"}}))
	defer ts.Close()
	const ping = `{"jsonrpc":"2.0","id":2,"method":"ping"}`

	code, alice := mcpPost(t, ts.URL, "alice-token", "", initializeBody)
	if code != http.StatusOK || alice == "" {
		t.Fatalf("alice initialize: %d %q", code, alice)
	}
	code, bob := mcpPost(t, ts.URL, "bob-token", "", initializeBody)
	if code != http.StatusOK || bob == "" || bob == alice {
		t.Fatalf("bob initialize: %d %q", code, bob)
	}
	if code, _ := mcpPost(t, ts.URL, "alice-token", alice, ping); code != http.StatusOK {
		t.Fatalf("alice on her session: %d", code)
	}
	if code, _ := mcpPost(t, ts.URL, "bob-token", alice, ping); code != http.StatusForbidden && code != http.StatusNotFound {
		t.Errorf("bob on alice's session: %d, want 403 or 404", code)
	}
	if code, _ := mcpPost(t, ts.URL, "", alice, ping); code != http.StatusUnauthorized {
		t.Errorf("no token on alice's session: %d, want 401", code)
	}
	if code, _ := mcpPost(t, ts.URL, "mallory", alice, ping); code != http.StatusUnauthorized {
		t.Errorf("unknown token on alice's session: %d, want 401", code)
	}
	forged := strings.Repeat("A", len(alice))
	if code, _ := mcpPost(t, ts.URL, "alice-token", forged, ping); code != http.StatusNotFound {
		t.Errorf("forged session id: %d, want 404", code)
	}

	// Bob cannot end alice's session either.
	req, _ := http.NewRequest("DELETE", ts.URL, nil)
	req.Header.Set("Authorization", "Bearer bob-token")
	req.Header.Set("Mcp-Session-Id", alice)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob deleting alice's session: %d, want 403 or 404", resp.StatusCode)
	}
	if code, _ := mcpPost(t, ts.URL, "alice-token", alice, ping); code != http.StatusOK {
		t.Errorf("alice's session after bob's attempts: %d", code)
	}
	if code, _ := mcpPost(t, ts.URL, "bob-token", bob, ping); code != http.StatusOK {
		t.Errorf("bob on his own session: %d", code)
	}
}

func TestTokenIdentity(t *testing.T) {
	a, b := TokenIdentity("alice-token"), TokenIdentity("bob-token")
	if a == b || strings.Contains(a, "alice") || len(a) < 24 {
		t.Errorf("identities %q, %q: want distinct hashes that do not show the token", a, b)
	}
}

// TestServeHTTPRefusesOpenBind: without a token only loopback is served, and
// a host must be named.
func TestServeHTTPRefusesOpenBind(t *testing.T) {
	srv, _ := New(newServices(t, nil), Options{})
	for _, o := range []HTTPOptions{{Addr: "0.0.0.0:0"}, {Addr: "[::]:0"}, {Addr: ":0", Token: "t"}} {
		err := srv.ServeHTTP(context.Background(), o, func(string) { t.Errorf("%s: listening", o.Addr) })
		if err == nil {
			t.Errorf("ServeHTTP(%s, token=%v) served", o.Addr, o.Token != "")
		}
	}
}

// TestHTTPSlowHeaders: a client trickling its headers one byte at a time,
// each byte well inside the timeout, is still cut off once the whole
// header has taken longer than HeaderTimeout.
func TestHTTPSlowHeaders(t *testing.T) {
	srv, _ := New(newServices(t, nil), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	const timeout = 400 * time.Millisecond
	go func() {
		done <- srv.ServeHTTP(ctx, HTTPOptions{Addr: "127.0.0.1:0", HeaderTimeout: timeout}, func(a string) { addrc <- a })
	}()
	addr := <-addrc
	defer func() { cancel(); <-done }()

	// The server's deadline starts when it accepts the connection, which is
	// after the dial began: timing from before the dial, an early close is a
	// real one.
	start := time.Now()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// 100 header lines at one byte per 20 ms would take over a minute.
	header := fmt.Sprintf("POST / HTTP/1.1\r\nHost: %s\r\n%s\r\n", addr, strings.Repeat("X-Slow: 1\r\n", 100))
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		buf := make([]byte, 512)
		for {
			if _, err := conn.Read(buf); err != nil {
				return
			}
		}
	}()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	sent := 0
	for sent < len(header) {
		select {
		case <-closed:
			elapsed := time.Since(start)
			if sent >= len(header) || elapsed < timeout {
				t.Fatalf("closed after %v and %d bytes", elapsed, sent)
			}
			return
		case <-tick.C:
			if _, err := conn.Write([]byte{header[sent]}); err != nil {
				return // the server closed the connection
			}
			sent++
		}
	}
	t.Fatalf("the whole slow header was accepted over %v", time.Since(start))
}
