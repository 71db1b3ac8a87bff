package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serveHTTPFor serves srv's HTTP transport with o on a loopback port for
// the test's length and returns its address.
func serveHTTPFor(t *testing.T, o HTTPOptions) string {
	t.Helper()
	srv, _ := New(newServices(t, nil), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	o.Addr = "127.0.0.1:0"
	go func() { done <- srv.ServeHTTP(ctx, o, func(a string) { addrc <- a }) }()
	t.Cleanup(func() { cancel(); <-done })
	return <-addrc
}

// unfinishedPost sends a request's headers, a Content-Length of 1000 and
// one byte of the body, then reads the answer while the rest is unsent.
// The deadline is a failure bound only: the answer is what is waited for.
func unfinishedPost(t *testing.T, addr, path, headers string) *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%sContent-Length: 1000\r\n\r\n{", path, addr, headers)
	conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer while the body is unsent: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// TestHTTPRefusesBeforeTheBody: a request without a good token is answered
// 401 at once, without waiting for a body that never comes, and its
// connection is closed; so is one from a foreign origin (403), and one
// with a body to the page, which takes none.
func TestHTTPRefusesBeforeTheBody(t *testing.T) {
	addr := serveHTTPFor(t, HTTPOptions{Token: "a-good-long-token-0123"})
	for _, tc := range []struct {
		name, path, headers string
		want                int
	}{
		{"no token", "/", "", http.StatusUnauthorized},
		{"wrong token", "/", "Authorization: Bearer not-the-token\r\n", http.StatusUnauthorized},
		{"foreign origin", "/", "Origin: http://evil.example\r\nAuthorization: Bearer a-good-long-token-0123\r\n", http.StatusForbidden},
		{"login code without a token", LoginCodePath, "", http.StatusUnauthorized},
		{"the page", "/ui/api/runs", "", http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := unfinishedPost(t, addr, tc.path, tc.headers)
			if resp.StatusCode != tc.want || !resp.Close {
				t.Errorf("answered %d (closing: %v), want %d and the connection closed", resp.StatusCode, resp.Close, tc.want)
			}
		})
	}
}

// TestHTTPBodyTimeout: an authenticated client that stops sending its
// body is answered 408 once BodyTimeout has passed, and the server still
// serves others.
func TestHTTPBodyTimeout(t *testing.T) {
	const token = "a-good-long-token-0123"
	addr := serveHTTPFor(t, HTTPOptions{Token: token, BodyTimeout: 200 * time.Millisecond})
	start := time.Now()
	resp := unfinishedPost(t, addr, "/", "Authorization: Bearer "+token+"\r\n")
	if resp.StatusCode != http.StatusRequestTimeout || !resp.Close {
		t.Errorf("answered %d (closing: %v), want 408 and the connection closed", resp.StatusCode, resp.Close)
	}
	if waited := time.Since(start); waited < 200*time.Millisecond {
		t.Errorf("answered after %v, before the body's time was up", waited)
	}
	if code, _ := mcpPost(t, "http://"+addr+"/", token, "", initializeBody); code != http.StatusOK {
		t.Errorf("initialize after a timed-out body: %d", code)
	}
}

// TestHTTPBodyBound: an authenticated body over MaxBodyBytes is refused
// with 413 whatever its Content-Length says.
func TestHTTPBodyBound(t *testing.T) {
	const token = "a-good-long-token-0123"
	addr := serveHTTPFor(t, HTTPOptions{Token: token, MaxBodyBytes: 1 << 10})
	body := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 4<<10) + `"}}`
	if code, _ := mcpPost(t, "http://"+addr+"/", token, "", body); code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: %d, want 413", code)
	}
}
