package webui

import (
	"bufio"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/store"
)

// TestEventsTellOfANewRun: an open event stream gets a "runs" event when
// an output is stored, within a second: by the page's own store, and by
// another Store sharing the file (another process: the CLI's daemon).
func TestEventsTellOfANewRun(t *testing.T) {
	base, c, st := newUI(t)
	other, err := store.Open(context.Background(), st.Path(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	resp, err := c.Get(base + "/ui/api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	events := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				events <- name
			}
		}
		close(events)
	}()
	if e := <-events; e != "ready" {
		t.Fatalf("first event %q, want ready", e)
	}
	for _, s := range []*store.Store{st, other} {
		if _, err := s.Put(context.Background(), store.Meta{Tool: "run"}, "hi\n", store.Final{Status: "success"}); err != nil {
			t.Fatal(err)
		}
		select {
		case e := <-events:
			if e != "runs" {
				t.Fatalf("event %q, want runs", e)
			}
		case <-time.After(time.Second):
			t.Fatalf("no event within 1 s of a run stored by %s", map[bool]string{true: "the page's store", false: "another store"}[s == st])
		}
	}
}
