package server

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAuthLimiterDelays: an address's first failures are answered at
// once, later ones after a delay that doubles up to its bound; once
// maxHeld answers are held the next is refused at once; failures older
// than the window are forgotten, and another address is not slowed.
func TestAuthLimiterDelays(t *testing.T) {
	now := time.Unix(1e9, 0)
	l := newAuthLimiter(nil)
	l.now = func() time.Time { return now }
	var got []time.Duration
	for range 12 {
		d, ok := l.fail("10.0.0.1")
		if !ok {
			t.Fatalf("failure %d refused with %d held", len(got)+1, l.held)
		}
		got = append(got, d)
		if d > 0 {
			l.release("10.0.0.1")
		}
	}
	want := []time.Duration{0, 0, 0, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond,
		800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond, 5 * time.Second, 5 * time.Second, 5 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("failure %d held %v, want %v (all: %v)", i+1, got[i], want[i], got)
		}
	}
	if d, ok := l.fail("10.0.0.2"); d != 0 || !ok {
		t.Errorf("another address's first failure: %v %v", d, ok)
	}
	for i := range l.maxHeld {
		if _, ok := l.fail("10.0.0.1"); !ok {
			t.Fatalf("held answer %d refused", i+1)
		}
	}
	if d, ok := l.fail("10.0.0.1"); ok {
		t.Errorf("with %d answers held the next is held too (%v), want it refused at once", l.maxHeld, d)
	}
	now = now.Add(l.window + time.Second)
	if d, ok := l.fail("10.0.0.1"); d != 0 || !ok {
		t.Errorf("after the window: %v %v, want answered at once", d, ok)
	}
}

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestHTTPSlowsFailedAuth: through the server, wrong tokens from one
// address are answered 401 more and more slowly and logged; the right
// token meanwhile is answered as usual.
func TestHTTPSlowsFailedAuth(t *testing.T) {
	const token = "a-good-long-token-0123"
	var log syncBuffer
	addr := serveHTTPFor(t, HTTPOptions{Token: token, Log: slog.New(slog.NewTextHandler(&log, nil))})
	post := func(tok string) (int, time.Duration) {
		req, _ := http.NewRequest("POST", "http://"+addr+"/", strings.NewReader(`{}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, time.Since(start)
	}
	var took time.Duration
	for i := range 5 {
		code, d := post("a-wrong-long-token-0123")
		if code != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: %d, want 401", i+1, code)
		}
		took = d
	}
	if took < 200*time.Millisecond { // the 5th failure is held 200 ms: a lower bound holds under load
		t.Errorf("the 5th failed authentication was answered in %v, want 200ms or more", took)
	}
	if code, _ := post(token); code == http.StatusUnauthorized || code == http.StatusTooManyRequests {
		t.Errorf("the right token after failures from its address: %d", code)
	}
	if l := log.String(); !strings.Contains(l, "failed authentication") || !strings.Contains(l, "remote=127.0.0.1") || !strings.Contains(l, "failures=4") {
		t.Errorf("failures not logged as expected:\n%s", l)
	}
}
