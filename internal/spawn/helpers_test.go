package spawn_test

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil"
)

// watcher is a sink that records everything and signals when a marker
// first appears, so tests wait on readiness instead of sleeping.
type watcher struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	seen   chan struct{}
	once   sync.Once
}

func newWatcher(marker string) *watcher {
	return &watcher{marker: marker, seen: make(chan struct{})}
}

func (w *watcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if bytes.Contains(w.buf.Bytes(), []byte(w.marker)) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *watcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func (w *watcher) wait(t *testing.T) {
	t.Helper()
	select {
	case <-w.seen:
	case <-time.After(30 * time.Second):
		t.Fatalf("never saw %q; output so far: %q", w.marker, w.String())
	}
}

// grandchildPid parses the "grandchild PID" line sigtermfork prints.
func grandchildPid(t *testing.T, out string) int {
	t.Helper()
	_, rest, ok := strings.Cut(out, "grandchild ")
	if !ok {
		t.Fatalf("no grandchild line in %q", out)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(rest, "\n", 2)[0]))
	if err != nil {
		t.Fatalf("bad grandchild line in %q: %v", out, err)
	}
	return pid
}

// requireGone fails if pid is still alive when the run has returned: the
// run promises that every process of its group has died by then (a zombie
// waiting for its new parent to reap it counts as dead).
func requireGone(t *testing.T, pid int) {
	t.Helper()
	if testutil.ProcessAlive(pid) {
		t.Fatalf("process %d survived the run", pid)
	}
}
