package server

import (
	"context"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// gcSettings reads the collector's target and memory limit.
func gcSettings() (percent int, limit int64) {
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

// While tool calls run the collector's target is raised and its memory
// limit set; once the server is idle after the last one (settle) both are
// what they were, however the calls overlap. Other methods leave them
// alone.
func TestBusyCallsRaiseTheCollectorsTarget(t *testing.T) {
	settled(t)
	percent, limit := gcSettings()
	r := &idleRelease{}
	var inner, outer [2]any
	second := r.middleware(func(context.Context, string, mcp.Request) (mcp.Result, error) {
		p, l := gcSettings()
		inner = [2]any{p, l}
		return nil, nil
	})
	first := r.middleware(func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		second(ctx, "tools/call", req) // a call that begins and ends while this one runs
		p, l := gcSettings()
		outer = [2]any{p, l}
		return nil, nil
	})
	first(context.Background(), "tools/call", nil)
	want := [2]any{busyGCPercent, min(int64(busyMemoryLimit), limit)}
	if inner != want || outer != want {
		t.Fatalf("during the calls: %v and %v, want %v", inner, outer, want)
	}
	if p, l := gcSettings(); [2]any{p, l} != want {
		t.Fatalf("as the last call returns: GC %d%% limit %d, want them raised until the server is idle", p, l)
	}
	// A call before the server settles finds them raised, and leaves
	// what they were before the first.
	var again [2]any
	r.middleware(func(context.Context, string, mcp.Request) (mcp.Result, error) {
		p, l := gcSettings()
		again = [2]any{p, l}
		return nil, nil
	})(context.Background(), "tools/call", nil)
	if again != want {
		t.Fatalf("a call before the server settled: %v, want %v", again, want)
	}
	r.settle() // as its timer does
	if p, l := gcSettings(); p != percent || l != limit {
		t.Fatalf("once idle: GC %d%% limit %d, want %d%% and %d as before", p, l, percent, limit)
	}
	var during int
	r.middleware(func(context.Context, string, mcp.Request) (mcp.Result, error) {
		during, _ = gcSettings()
		return nil, nil
	})(context.Background(), "tools/list", nil)
	if during != percent {
		t.Fatalf("tools/list ran with GC %d%%, want the default %d%%", during, percent)
	}
}

// The busy limit is the floor, or twice the live heap over it, and never
// over a limit set before (GOMEMLIMIT).
func TestBusyLimitFollowsTheLiveHeap(t *testing.T) {
	for _, c := range []struct {
		live   uint64
		before int64
		want   int64
	}{
		{10 << 20, math.MaxInt64, busyMemoryLimit},
		{busyMemoryLimit / 2, math.MaxInt64, busyMemoryLimit},
		{200 << 20, math.MaxInt64, 400 << 20},
		{200 << 20, 300 << 20, 300 << 20},
		{10 << 20, 100 << 20, 100 << 20},
		{math.MaxUint64, math.MaxInt64, math.MaxInt64 - 1},
	} {
		if got := busyLimit(c.live, c.before); got != c.want {
			t.Errorf("busyLimit(%d, %d) = %d, want %d", c.live, c.before, got, c.want)
		}
	}
}

// While a call runs, each collection sets the limit again from the heap it
// left live; once the server is idle the watch ends at the next collection.
func TestCollectionsResetTheBusyLimit(t *testing.T) {
	settled(t)
	_, before := gcSettings()
	r := &idleRelease{}
	release := make(chan struct{})
	running := make(chan struct{})
	go r.middleware(func(context.Context, string, mcp.Request) (mcp.Result, error) {
		close(running)
		<-release
		return nil, nil
	})(context.Background(), "tools/call", nil)
	<-running
	want := busyLimit(liveHeap(), before)
	debug.SetMemoryLimit(want / 2) // as if set from a smaller heap
	collectUntil(t, "the limit set again", func() bool { return debug.SetMemoryLimit(-1) == want })
	close(release)
	collectUntil(t, "the call ended", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.inflight == 0
	})
	r.settle()
	collectUntil(t, "the watch ended", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return !r.watching
	})
	if _, l := gcSettings(); l != before {
		t.Fatalf("after the call: limit %d, want %d", l, before)
	}
}

// collectUntil runs collections until done holds: finalizers run after a
// collection, on their own goroutine.
func collectUntil(t *testing.T, what string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 10 s of collections", what)
		}
		runtime.GC()
		runtime.Gosched()
	}
}

// Once the default's goal is back under a heap the busy target let grow,
// startCollection (what settle does then, when no release is due) starts
// the collection it is due, without waiting for one (runtime.GC). Nothing
// else here allocates, so nothing else would start it.
func TestStartCollectionStartsTheDueOne(t *testing.T) {
	if n := testing.AllocsPerRun(10, func() { gcCycles() }); n != 0 {
		t.Fatalf("reading the collections allocates (%v)", n)
	}
	settled(t)
	// Swept whole, the heap holds no garbage that growOver would count.
	runtime.GC()
	goal := heapGoal() // the default's
	percent, _ := gcSettings()
	defer debug.SetGCPercent(percent)
	growOver(t, goal+goal/4)
	debug.SetGCPercent(percent)
	before := gcCycles()
	startCollection()
	deadline := time.Now().Add(10 * time.Second)
	for gcCycles() == before {
		if time.Now().After(deadline) {
			t.Fatalf("no collection ended in 10 s: heap %d, goal %d", heapObjects(), heapGoal())
		}
		runtime.Gosched()
	}
}

// settled puts the process's collector settings back, as its server's
// settle does once idle: an earlier test's servers leave it raised, and its
// settle, due 100 ms after their last call, would put them back in the
// middle of a test that sets them.
func settled(t *testing.T) {
	t.Helper()
	processRelease.settle()
	processRelease.mu.Lock()
	defer processRelease.mu.Unlock()
	if processRelease.raised {
		t.Fatal("a call of an earlier test is still running")
	}
}

// growOver allocates garbage until the heap holds over size bytes, with no
// collection meanwhile (the busy target's goal is five times the live
// heap, the default's twice, and at least 4 MiB times as much).
func growOver(t *testing.T, size uint64) {
	for range 20 {
		debug.SetGCPercent(busyGCPercent) // again: an earlier test's release may collect meanwhile
		start := gcCycles()
		for gcCycles() == start {
			if heapObjects() > size {
				return
			}
			garbage = make([]byte, 4<<10)
		}
	}
	t.Fatalf("every try to grow the heap over %d bytes met a collection", size)
}

var garbage []byte

// cycleSample is read without allocating: an allocation in the wait for
// the collection could start it.
var cycleSample = []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}

func gcCycles() uint64 {
	metrics.Read(cycleSample)
	return cycleSample[0].Value.Uint64()
}

func heapGoal() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
