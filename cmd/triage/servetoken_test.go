package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// A token of under 16 characters is refused at start-up, from every
// source, as is --no-token beside a token or off loopback.
func TestServeRefusesShortToken(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte("a-long-enough-token-1\nshort\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--token", "x"}, "too short"},
		{[]string{"--token", "fifteen-chars-x"}, "too short"},
		{[]string{"--token-file", file}, "too short"},
		{[]string{"--no-token", "--token", "a-long-enough-token-1"}, "--no-token and a token"},
		{[]string{"--no-token", "--http", "10.1.2.3:0"}, "not loopback"},
	} {
		args := append([]string{"serve", "--http", "127.0.0.1:0"}, c.args...)
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 saying %q", args, code, stderr.String(), c.want)
		}
	}
}

// lineFeed is a writer that hands each complete line written to it on.
type lineFeed struct {
	mu  sync.Mutex
	buf bytes.Buffer
	out chan string
}

func (l *lineFeed) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(b)
	for {
		line, err := l.buf.ReadString('\n')
		if err != nil {
			l.buf.WriteString(line)
			return len(b), nil
		}
		l.out <- line
	}
}

// TestServeMakesAToken: `serve --http` without --token makes one, prints
// it with the MCP URL and the page's login URL on stderr, accepts it and
// nothing else, and writes neither the token nor the login URL to the log
// file.
func TestServeMakesAToken(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "serve.log")
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &lineFeed{out: make(chan string, 64)}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--http", "127.0.0.1:0", "--log-file", logFile}, strings.NewReader(""), &bytes.Buffer{}, stderr)
	}()
	bearer := regexp.MustCompile(`Authorization: Bearer (\S+)`)
	mcpURL := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/) takes`)
	var token, url, login string
	bound := time.After(time.Minute) // a failure bound only
	for token == "" || login == "" {
		select {
		case l := <-stderr.out:
			if m := bearer.FindStringSubmatch(l); m != nil && token == "" {
				token = m[1]
			}
			if m := mcpURL.FindStringSubmatch(l); m != nil {
				url = m[1]
			}
			if strings.Contains(l, "/ui/login?code=") {
				login = l
			}
		case code := <-done:
			cancel()
			t.Fatalf("serve ended (exit %d) before printing its token and login URL", code)
		case <-bound:
			cancel()
			t.Fatalf("serve printed no token and login URL on stderr within a minute (token %q, login %q)", token, login)
		}
	}
	if len(token) < 22 || url == "" { // 128 bits in base32 is 26 characters
		t.Fatalf("token %q (want 128 bits or more), MCP URL %q", token, url)
	}
	status := func(tok string) int {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{}`))
		req.Header.Set("Content-Type", "application/json")
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := status(""); got != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", got)
	}
	if got := status("not-the-token-0123456789"); got != http.StatusUnauthorized {
		t.Errorf("another token: %d, want 401", got)
	}
	if got := status(token); got == http.StatusUnauthorized || got == http.StatusTooManyRequests {
		t.Errorf("the token printed: %d", got)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exited %d after its context ended", code)
	}
	log, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(log); strings.Contains(s, token) || strings.Contains(s, "login?code=") || !strings.Contains(s, "serving MCP over streamable HTTP") {
		t.Errorf("the log file holds a secret (or not the serve line):\n%s", s)
	}
	if !strings.Contains(string(log), "failed authentication") {
		t.Errorf("the failed authentications are not logged:\n%s", log)
	}
}
