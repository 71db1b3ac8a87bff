package spawn_test

import (
	"context"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// hangRecorder is an OnHang that records its calls and whether the group
// was still whole (alive, not yet signalled) when called.
type hangRecorder struct {
	mu    sync.Mutex
	calls []spawn.Hang
	alive []bool
	block bool // wait for the context to end, as a slow capture would
}

func (h *hangRecorder) onHang(ctx context.Context, hg spawn.Hang) {
	alive := syscall.Kill(-hg.Pgid, 0) == nil
	h.mu.Lock()
	h.calls = append(h.calls, hg)
	h.alive = append(h.alive, alive)
	h.mu.Unlock()
	if h.block {
		<-ctx.Done()
	}
}

func (h *hangRecorder) got() ([]spawn.Hang, []bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]spawn.Hang(nil), h.calls...), append([]bool(nil), h.alive...)
}

func TestOnHangBeforeTimeoutKill(t *testing.T) {
	var h hangRecorder
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv: []string{crashers.Build(t, "sleeper"), "600"}, Timeout: 100 * time.Millisecond, OnHang: h.onHang,
	})
	if err != nil {
		t.Fatal(err)
	}
	calls, alive := h.got()
	if len(calls) != 1 || calls[0].Reason != spawn.HangTimeout || calls[0].Pgid != res.Pid || !alive[0] {
		t.Fatalf("OnHang calls %+v (group alive: %v), want one timeout call for pgid %d while alive", calls, alive, res.Pid)
	}
	// The kill came after the hook: the sleeper died of our SIGTERM.
	if !res.TimedOut || res.SignalName != "SIGTERM" {
		t.Errorf("got %+v", res)
	}
}

// TestOnHangContextDeadline: a deadline on the context is a timeout too,
// and a Spec.Timeout firing at the same moment does not run the hook twice
// nor kill during it.
func TestOnHangContextDeadline(t *testing.T) {
	var h hangRecorder
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	res, err := spawn.Run(ctx, spawn.Spec{
		Argv: []string{crashers.Build(t, "sleeper"), "600"}, Timeout: 100 * time.Millisecond, OnHang: h.onHang,
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls, alive := h.got(); len(calls) != 1 || !alive[0] {
		t.Fatalf("OnHang calls %+v (alive %v), want one", calls, alive)
	}
	if !res.TimedOut || res.Cancelled {
		t.Errorf("got %+v", res)
	}
}

// TestOnHangBounded: a hook that takes too long does not hold the kill
// beyond HangLimit.
func TestOnHangBounded(t *testing.T) {
	h := hangRecorder{block: true}
	start := time.Now()
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv: []string{crashers.Build(t, "sleeper"), "600"}, Timeout: 50 * time.Millisecond,
		OnHang: h.onHang, HangLimit: 200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls, _ := h.got(); len(calls) != 1 || !res.TimedOut || res.SignalName != "SIGTERM" {
		t.Fatalf("calls %+v, result %+v", calls, res)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("run took %s: the hook's limit did not bound it", d)
	}
}

func TestOnHangNotOnCancel(t *testing.T) {
	var h hangRecorder
	ctx, cancel := context.WithCancel(context.Background())
	w := newWatcher("ready")
	p, err := spawn.Start(ctx, spawn.Spec{Argv: []string{crashers.Build(t, "sleeper"), "600"}, Stdout: w, OnHang: h.onHang})
	if err != nil {
		t.Fatal(err)
	}
	w.wait(t)
	cancel()
	res, _ := p.Wait()
	if calls, _ := h.got(); len(calls) != 0 {
		t.Errorf("a cancelled run called OnHang: %+v", calls)
	}
	if !res.Cancelled || res.TimedOut {
		t.Errorf("got %+v", res)
	}
}

// TestOnHangStopIgnoredTerm: Stop of a group that ignores SIGTERM calls
// the hook before SIGKILL; Stop of one that obeys does not.
func TestOnHangStopIgnoredTerm(t *testing.T) {
	t.Run("ignored", func(t *testing.T) {
		var h hangRecorder
		w := newWatcher("grandchild ")
		p, err := spawn.Start(context.Background(), spawn.Spec{
			Argv: []string{crashers.Build(t, "sigtermfork"), "hang"}, Stdout: w, OnHang: h.onHang,
		})
		if err != nil {
			t.Fatal(err)
		}
		w.wait(t)
		res, _ := p.Stop(100 * time.Millisecond)
		calls, alive := h.got()
		if len(calls) != 1 || calls[0].Reason != spawn.HangIgnoredTerm || !alive[0] {
			t.Fatalf("OnHang calls %+v (alive %v), want one for the ignored SIGTERM", calls, alive)
		}
		if !res.Cancelled || res.SignalName != "SIGKILL" {
			t.Errorf("got %+v", res)
		}
		requireGone(t, grandchildPid(t, w.String()))
	})
	t.Run("obeyed", func(t *testing.T) {
		var h hangRecorder
		w := newWatcher("ready")
		p, err := spawn.Start(context.Background(), spawn.Spec{Argv: []string{crashers.Build(t, "sleeper"), "600"}, Stdout: w, OnHang: h.onHang})
		if err != nil {
			t.Fatal(err)
		}
		w.wait(t)
		res, _ := p.Stop(time.Second)
		if calls, _ := h.got(); len(calls) != 0 {
			t.Errorf("OnHang called for a process that obeyed SIGTERM: %+v", calls)
		}
		if res.SignalName != "SIGTERM" {
			t.Errorf("got %+v", res)
		}
	})
}

// TestOnHangDoneBeforeResult: what the hook gathered is complete when the
// run's Result is published, even when the hook outlives its limit and the
// kill went ahead without it (under -race, a missing wait is a reported
// race on gathered).
func TestOnHangDoneBeforeResult(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var gathered []spawn.Hang // written by the hook, read after Run, unlocked
	go func() {
		<-entered
		close(release)
	}()
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv: []string{crashers.Build(t, "sleeper"), "600"}, Timeout: 50 * time.Millisecond, HangLimit: 50 * time.Millisecond,
		OnHang: func(ctx context.Context, h spawn.Hang) {
			close(entered)
			<-ctx.Done() // past the limit: the kill proceeds without the hook
			<-release
			gathered = append(gathered, h)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(gathered) != 1 || !res.TimedOut {
		t.Fatalf("gathered %+v by the time the result %+v was published", gathered, res)
	}
}
