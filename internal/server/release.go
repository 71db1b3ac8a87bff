package server

import (
	"context"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// releaseGrowth is how far the memory the runtime holds may grow over what
// it held after the last release before an idle server returns it.
const releaseGrowth = 4 << 20

// idleRelease returns memory to the kernel when the server goes idle after
// calls that grew it: the last tool call to finish, with nothing else
// running, finds the runtime holding more than releaseGrowth over what it
// held after the last release, and, once the server has stayed idle for
// idleDelay, a collection returns the free pages (debug.FreeOSMemory), off
// the call's path. Without it the heap a
// large request used (a 7 MB argument decoded, a search's pages) stays
// resident until the next collection, which an idle server reaches only by
// the runtime's two-minute forced one, and then goes back at the
// scavenger's pace. Under steady load the server is never idle and the
// collector bounds the heap as usual.
//
// While calls run, the collector's target is raised (busyGCPercent): a
// call mostly streams a toolchain's output, and on a small machine the
// collector's CPU is taken from the build or the tests beside it (a Go
// coverage run of a corpus project: the server's CPU 14-17 ms a call at
// the default, 13-14 ms at 400, and the run's overhead over go test's own
// about two points lower; docs/PERFORMANCE.md). The heap may grow further
// meanwhile, within a soft limit (busyLimit), and the idle release returns
// it. The settings go back when the server has stayed idle idleDelay, not
// as the last call returns: a collection the default target started then
// would run while its answer is encoded and written (0.5-1 ms of a Go
// coverage run's answer).
//
// The collector's settings are the process's, so one idleRelease serves
// every server in it (processRelease).
type idleRelease struct {
	mu       sync.Mutex
	inflight int
	held     uint64 // what the runtime held after the last release
	pending  bool   // a settle is scheduled
	// raised says the collector runs at the busy settings; gcPercent and
	// memoryLimit are those it had before.
	raised      bool
	gcPercent   int
	memoryLimit int64
	watching    bool // a sentinel's finalizer follows the collections (watchCollections)
}

// processRelease is the process's idleRelease.
var processRelease = &idleRelease{}

// The collector's settings while calls run: its target, and a soft limit
// on the memory the runtime holds, so that a live heap over 51 MiB grows
// to 256 MiB at most rather than fivefold.
const (
	busyGCPercent   = 400
	busyMemoryLimit = 256 << 20
)

// busyLimit is the soft memory limit while calls run, given the live heap
// after the last collection: busyMemoryLimit, or twice the live heap when
// that is more, so that a heap near the floor is collected no more often
// than at the default target (a limit just over the live heap would start
// a collection every few megabytes); never over the limit set before the
// calls (GOMEMLIMIT).
func busyLimit(live uint64, before int64) int64 {
	return min(before, max(busyMemoryLimit, 2*int64(min(live, math.MaxInt64/2))))
}

func (r *idleRelease) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		r.mu.Lock()
		if !r.raised {
			r.raised = true
			r.gcPercent = debug.SetGCPercent(busyGCPercent)
			r.memoryLimit = debug.SetMemoryLimit(-1)
			debug.SetMemoryLimit(busyLimit(liveHeap(), r.memoryLimit))
		}
		r.watchCollections()
		r.inflight++
		r.mu.Unlock()
		defer r.done()
		return next(ctx, method, req)
	}
}

// gcSentinel is garbage whose finalizer runs after a collection; the
// pointer keeps it out of the tiny allocator, whose objects may never be
// finalized.
type gcSentinel struct{ _ *byte }

// watchCollections follows the collections while calls run, each time
// setting the memory limit from the live heap it left: a call whose live
// heap grows toward the limit raises it (busyLimit). The watch ends at the
// first collection after the settings go back, so an idle server runs no
// finalizer.
func (r *idleRelease) watchCollections() {
	if r.watching {
		return
	}
	r.watching = true
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) { r.collected() })
}

// collected runs after a collection (watchCollections).
func (r *idleRelease) collected() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.watching = false
	if !r.raised {
		return
	}
	debug.SetMemoryLimit(busyLimit(liveHeap(), r.memoryLimit))
	r.watchCollections()
}

// idleDelay is how long the server stays idle before it settles: the
// transport still holds the last call's request and answer while it writes
// the answer, and a release before it lets go would keep them.
const idleDelay = 100 * time.Millisecond

// done ends one call and, when it was the last one, schedules the settle.
func (r *idleRelease) done() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inflight--
	if r.inflight > 0 || r.pending {
		return
	}
	r.pending = true
	time.AfterFunc(idleDelay, r.settle)
}

// settle, unless a call started meanwhile (whose end schedules the next
// one), puts the collector's settings back and collects, and, when the
// runtime has grown, returns the free memory.
func (r *idleRelease) settle() {
	r.mu.Lock()
	r.pending = false
	if r.inflight > 0 {
		r.mu.Unlock()
		return
	}
	restored := r.raised
	if restored {
		r.raised = false
		debug.SetGCPercent(r.gcPercent)
		debug.SetMemoryLimit(r.memoryLimit)
	}
	grown := heldBytes() >= r.held+releaseGrowth
	r.mu.Unlock()
	if !grown {
		if restored {
			startCollection()
		}
		return
	}
	debug.FreeOSMemory()
	held := heldBytes()
	r.mu.Lock()
	r.held = held
	r.mu.Unlock()
}

// startCollection starts the collection that the heap the busy target let
// grow is due, now that the default's goal is back: else the next call's
// first allocations would start it and pay its assists (about 1 ms of its
// answer). runtime.GC would wait for the sweep too, yielding between
// spans: some 5 ms of CPU for a 40 MB heap, where the background sweeper
// needs less. An allocation the runtime takes from the heap (over 32 KB)
// checks the trigger and starts a concurrent cycle (one over 64 KB is
// never on the stack); were it not to, the next call's would.
func startCollection() {
	runtime.KeepAlive(make([]byte, 128<<10))
}

// liveHeap is the heap the last collection found live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// heldBytes is the memory the runtime has mapped and not returned to the
// kernel: what it adds to the resident set at most.
func heldBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() - s[1].Value.Uint64()
}
