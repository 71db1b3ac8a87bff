package webui

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/identity"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/testutil/crashers"
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

// TestStreamsShareOnePoller: N open event streams cost one poll of the
// store's Version per tick, not N; the poller starts with the first
// stream and stops with the last, and a version another process moved
// reaches every stream.
func TestStreamsShareOnePoller(t *testing.T) {
	const n = 5
	u, base, c, st := serveUI(t)
	ticks := make(chan time.Time)
	starts, stops := make(chan struct{}, 64), make(chan struct{}, 64)
	polls := make(chan struct{}, 64)
	u.watch.mu.Lock() // the streams' handlers read them under it
	u.watch.ticks = func() (<-chan time.Time, func()) {
		starts <- struct{}{}
		return ticks, func() { stops <- struct{}{} }
	}
	u.watch.polled = func() { polls <- struct{}{} }
	u.watch.mu.Unlock()
	other, err := store.Open(context.Background(), st.Path(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	var streams []*eventStream
	for range n {
		streams = append(streams, openEvents(t, c, base))
	}
	if len(starts) != 1 {
		t.Fatalf("%d pollers started for %d streams, want 1", len(starts), n)
	}
	<-starts
	for i := range 3 {
		ticks <- time.Now()
		<-polls
		select {
		case <-polls:
			t.Fatalf("tick %d: more than one poll", i)
		default:
		}
	}
	// A run stored by another process: the next poll tells every stream.
	if _, err := other.Put(context.Background(), store.Meta{Tool: "run"}, "hi\n", store.Final{Status: "success"}); err != nil {
		t.Fatal(err)
	}
	ticks <- time.Now()
	<-polls
	for i, s := range streams {
		if e := s.next(t); e != "runs" {
			t.Fatalf("stream %d: event %q, want runs", i, e)
		}
	}
	if len(polls) != 0 {
		t.Fatalf("%d more polls than ticks", len(polls))
	}
	for _, s := range streams {
		s.close()
	}
	select {
	case <-stops:
	case <-time.After(10 * time.Second):
		t.Fatal("the poller still runs after the last stream closed")
	}
	if got := u.Streams(); got != 0 {
		t.Errorf("%d streams counted after all closed", got)
	}
	openEvents(t, c, base).close() // a new first stream starts a new poller
	if len(starts) != 1 {
		t.Errorf("the next first stream started %d pollers, want 1", len(starts))
	}
}

// One change this process makes to the store reaches an open stream as
// one "runs" event, not a second one when the shared poller next reads
// the version the change moved: a run's creation and its end (a change
// each) are one event each, whatever the ticks in between. A dump session
// opened after each is the marker: the next event is its "sessions".
func TestOneChangeOneEvent(t *testing.T) {
	u, base, c, st := serveUI(t)
	ticks := make(chan time.Time)
	polls := make(chan struct{}, 64)
	u.watch.mu.Lock() // the streams' handlers read them under it
	u.watch.ticks = func() (<-chan time.Time, func()) { return ticks, func() {} }
	u.watch.polled = func() { polls <- struct{}{} }
	u.watch.mu.Unlock()
	core, exe := crashers.Core(t, "segv")
	ev := openEvents(t, c, base)
	defer ev.close()
	ctx := context.Background()
	change := func(name string, fn func() error) {
		t.Helper()
		if err := fn(); err != nil {
			t.Fatal(err)
		}
		if e := ev.next(t); e != "runs" {
			t.Fatalf("event %q after %s, want runs", e, name)
		}
		for range 3 { // the poller reads the version again: nothing new
			ticks <- time.Now()
			<-polls
		}
		s, _, err := u.svc.Dumps().Open(ctx, postmortem.Target{Core: core, Program: exe})
		if err != nil {
			t.Fatal(err)
		}
		if e := ev.next(t); e != "sessions" {
			t.Fatalf("event %q after %s and 3 polls, want the marker's sessions (one change, one event)", e, name)
		}
		if _, _, err := u.svc.Dumps().Close(ctx, s.ID); err != nil {
			t.Fatal(err)
		}
		if e := ev.next(t); e != "sessions" {
			t.Fatalf("event %q after the marker closed, want sessions", e)
		}
	}
	var w *store.Writer
	change("a run created", func() (err error) {
		w, err = st.Create(ctx, store.Meta{Tool: "run"})
		return err
	})
	change("its progress", func() error { return w.Progress(ctx, "compiling 3/7") })
	change("its end", func() error { return w.Finish(ctx, store.Final{Status: "success"}) })
}

// serveUI is newUI with the UI itself, for tests that look inside it.
func serveUI(t testing.TB) (*UI, string, *http.Client, *store.Store) {
	t.Helper()
	svc, err := services.New(&config.Config{Store: config.Store{Path: filepath.Join(t.TempDir(), "triage.db")}}, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	st, err := svc.Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	u := New(svc, Options{})
	ts := httptest.NewServer(u)
	t.Cleanup(ts.Close)
	t.Cleanup(u.Close)
	ck, key, ok := u.Logins().Redeem(u.Logins().Mint(identity.Server))
	if !ok {
		t.Fatal("a fresh code was refused")
	}
	ck.Name = CookieName(ts.URL[strings.LastIndex(ts.URL, ":")+1:])
	return u, ts.URL, &http.Client{Transport: cookie{ck, key, http.DefaultTransport}}, st
}

// eventStream is an open /ui/api/events response and its events' names.
type eventStream struct {
	body   io.Closer
	events chan string
}

// openEvents opens an event stream and waits for its "ready".
func openEvents(t *testing.T, c *http.Client, base string) *eventStream {
	t.Helper()
	resp, err := c.Get(base + "/ui/api/events")
	if err != nil {
		t.Fatal(err)
	}
	s := &eventStream{body: resp.Body, events: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				s.events <- name
			}
		}
		close(s.events)
	}()
	if e := s.next(t); e != "ready" {
		t.Fatalf("first event %q, want ready", e)
	}
	return s
}

func (s *eventStream) next(t *testing.T) string {
	t.Helper()
	select {
	case e := <-s.events:
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10 s")
		return ""
	}
}

func (s *eventStream) close() { s.body.Close() }

// TestEventsTellOfASessionChange: an open event stream gets a "sessions"
// event when a dump session opens, when a command joins its history and
// when it closes, and no "runs" event for them (no run was stored).
func TestEventsTellOfASessionChange(t *testing.T) {
	u, base, c, _ := serveUI(t)
	core, exe := crashers.Core(t, "segv")
	ev := openEvents(t, c, base)
	defer ev.close()
	ctx := context.Background()
	s, _, err := u.svc.Dumps().Open(ctx, postmortem.Target{Core: core, Program: exe})
	if err != nil {
		t.Fatal(err)
	}
	if e := ev.next(t); e != "sessions" {
		t.Fatalf("event %q after a dump opened, want sessions", e)
	}
	s.Record(postmortem.Command{Command: "bt", Engine: postmortem.EngineGDB, At: time.Now(), Cached: true, OutputID: "o-1"})
	if e := ev.next(t); e != "sessions" {
		t.Fatalf("event %q after a command, want sessions", e)
	}
	if _, _, err := u.svc.Dumps().Close(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if e := ev.next(t); e != "sessions" {
		t.Fatalf("event %q after the dump closed, want sessions", e)
	}
}
