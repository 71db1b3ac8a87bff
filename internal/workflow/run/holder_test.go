package run_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/hangers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
)

// TestRunGoWorkersGone: a Go program waiting on a WaitGroup whose workers
// have all ended is HUNG, and the verdict says no goroutine is left that
// could call Done.
func TestRunGoWorkersGone(t *testing.T) {
	p := hangers.GoWorkersGone(t)
	c := mcptest.Connect(t, nil)
	r := c.Call("run", map[string]any{"program": p.Bin, "stall_s": 2})
	want := fmt.Sprintf("HUNG: no progress for 2s; in main.main, blocked in sync.WaitGroup.Wait at main.go:%d; no other goroutine is left that could call Done", p.Line(t, "WAIT-WORKERS"))
	if !strings.HasPrefix(r.FirstLine(), want) {
		t.Fatalf("verdict %q, want %q\n%s", r.FirstLine(), want, r.Text)
	}
}

// TestRunServerWaitsForConnection: a foreground run of a server idle in
// accept, epoll_wait or poll on its listening socket is HUNG, and the
// verdict says it waits for a connection and what runs a server.
func TestRunServerWaitsForConnection(t *testing.T) {
	p := hangers.Server(t)
	c := mcptest.Connect(t, nil)
	for mode, tt := range map[string]struct{ call, marker string }{
		"accept": {"accept", "ACCEPT"}, "epoll": {"poll", "EPOLL-WAIT"}, "poll": {"poll", "POLL-ONE"},
	} {
		t.Run(mode, func(t *testing.T) {
			r := c.Call("run", map[string]any{"program": p.Bin, "args": []string{mode}, "stall_s": 2})
			want := fmt.Sprintf("HUNG: no progress for 2s; in main, blocked in %s at server.c:%d "+
				"(waiting for a connection — a server? process_start runs it in the background) — process group killed", tt.call, p.Line(t, tt.marker))
			if r.FirstLine() != want {
				t.Fatalf("verdict %q\nwant    %q\n%s", r.FirstLine(), want, r.Text)
			}
		})
	}
}
