package hang

import (
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/coredump"
)

var mutexLock = []coredump.Frame{
	{Function: "__lll_lock_wait", File: "./nptl/lowlevellock.c", Line: 49},
	{Function: "___pthread_mutex_lock", File: "./nptl/pthread_mutex_lock.c", Line: 93},
}

// waiterStack is thread id (LWP 100+id) waiting in fn for a mutex owner
// holds (an LWP; 0: not known).
func waiterStack(id int, fn string, owner int) Stack {
	return Stack{Kind: KindThread, ID: id, LWP: 100 + id, MutexOwner: owner, Frames: append(mutexLock[:2:2], frameAt(fn, "m.c"))}
}

// TestHolderPhrases: the wording over stacks whose mutex owners are
// known, unknown, or hold without a frame of the user's.
func TestHolderPhrases(t *testing.T) {
	readFrames := []coredump.Frame{{Function: "__libc_read", File: "../sysdeps/unix/sysv/linux/read.c", Line: 26}}
	for _, c := range []struct {
		name   string
		stacks []Stack
		want   string
	}{
		{"holders unknown: the waiters alone, as before", []Stack{waiterStack(2, "one", 0), waiterStack(3, "two", 0)},
			"deadlocked: one blocked in pthread_mutex_lock at m.c:3; two blocked in pthread_mutex_lock at m.c:3"},
		{"one waiter, a holder in user code", []Stack{waiterStack(2, "one", 103), {Kind: KindThread, ID: 3, LWP: 103, Frames: append(readFrames, frameAt("reader", "m.c"))}},
			"in one, blocked in pthread_mutex_lock at m.c:3 waits for a mutex held by reader, blocked in read at m.c:3"},
		{"a holder with no user frame is named by its thread", []Stack{waiterStack(2, "one", 103), waiterStack(4, "two", 103), {Kind: KindThread, ID: 3, LWP: 103, Frames: readFrames}},
			"waiting for locks: one blocked in pthread_mutex_lock at m.c:3 waits for a mutex held by thread 3 (LWP 103), blocked in read; two blocked in pthread_mutex_lock at m.c:3 waits for a mutex held by thread 3 (LWP 103)"},
		{"a cycle is found from a waiter outside it", []Stack{waiterStack(1, "main", 102), waiterStack(2, "one", 103), waiterStack(3, "two", 102)},
			"deadlocked: one blocked in pthread_mutex_lock at m.c:3 waits for a mutex held by two; two blocked in pthread_mutex_lock at m.c:3 waits for a mutex held by one; main blocked in pthread_mutex_lock at m.c:3 waits for a mutex held by one; deadlock cycle: one → two → one"},
	} {
		rep := &Report{Stacks: c.stacks}
		if got := Phrase(rep.Analyze("")); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestHolderPhraseBounded: many waiters on one holder name a few, and how
// many more; the same function is told apart by LWP.
func TestHolderPhraseBounded(t *testing.T) {
	rep := &Report{Stacks: []Stack{{Kind: KindThread, ID: 1, LWP: 101, Frames: []coredump.Frame{{Function: "__libc_read", File: "read.c", Line: 26}, frameAt("reader", "m.c")}}}}
	for id := 2; id < 10; id++ {
		rep.Stacks = append(rep.Stacks, waiterStack(id, "worker", 101))
	}
	got := Phrase(rep.Analyze(""))
	if !strings.HasPrefix(got, "waiting for locks: worker (LWP 102) blocked in pthread_mutex_lock at m.c:3 waits for a mutex held by reader, blocked in read at m.c:3; worker (LWP 103) ") ||
		strings.Count(got, "worker (LWP") != maxDeadlocked || !strings.HasSuffix(got, "; and 4 more waiting for locks") {
		t.Errorf("got %q", got)
	}
}

// TestAllGoroutinesBlocked: said only when every goroutine but the
// runtime's waits for another, and the whole dump was read.
func TestAllGoroutinesBlocked(t *testing.T) {
	gc := Stack{Kind: KindGoroutine, ID: 2, State: "GC sweep wait", Frames: []coredump.Frame{{Function: "runtime.gopark", File: "proc.go", Line: 1}, {Function: "runtime.bgsweep", File: "mgcsweep.go", Line: 1}}}
	g0 := Stack{Kind: KindGoroutine, ID: 0, State: "idle", Frames: []coredump.Frame{{Function: "internal/runtime/syscall/linux.Syscall6", File: "asm.s", Line: 1}}}
	send := Stack{Kind: KindGoroutine, ID: 1, State: "chan send", Frames: []coredump.Frame{{Function: "runtime.chansend1", File: "chan.go", Line: 1}, frameAt("main.main", "main.go")}}
	worker := func(id int, state string) Stack {
		return Stack{Kind: KindGoroutine, ID: id, State: state, Frames: []coredump.Frame{{Function: "runtime.gopark", File: "proc.go", Line: 1}, frameAt("main.worker", "main.go")}}
	}
	harness := Stack{Kind: KindGoroutine, ID: 1, State: "chan receive", Frames: []coredump.Frame{{Function: "runtime.gopark", File: "proc.go", Line: 1},
		{Function: "testing.(*T).Run", File: "testing.go", Line: 1}, {Function: "main.main", File: "_testmain.go", Line: 1}}}
	userHarness := harness
	userHarness.Frames = append([]coredump.Frame{frameAt("main.helper", "main.go")}, harness.Frames...)
	const all = "in main.main, blocked in chan send at main.go:3; " + allBlockedPhrase
	for _, c := range []struct {
		name   string
		stacks []Stack
		cut    bool
		want   string
	}{
		{"all blocked", []Stack{g0, send, gc, worker(6, "chan receive")}, false, all},
		{"one asleep on a timer", []Stack{g0, send, gc, worker(6, "sleep")}, false, "in main.main, blocked in chan send at main.go:3"},
		{"one runnable", []Stack{send, worker(6, "runnable")}, false, "in main.main, blocked in chan send at main.go:3"},
		{"one waiting for the network", []Stack{send, worker(6, "IO wait")}, false, "in main.main, blocked in chan send at main.go:3"},
		{"the dump was cut", []Stack{send, worker(6, "chan receive")}, true, "in main.main, blocked in chan send at main.go:3"},
		{"alone: the runtime's own are no senders", []Stack{g0, send, gc}, false,
			"in main.main, blocked in chan send at main.go:3; no other goroutine is left that could receive"},
		{"alone beside the test harness waiting", []Stack{harness, worker(7, "sync.WaitGroup.Wait")}, false,
			"in main.worker, blocked in sync.WaitGroup.Wait at main.go:3; no other goroutine is left that could call Done"},
		{"a nil channel", []Stack{g0, worker(6, "chan receive (nil chan)")}, false,
			"in main.worker, blocked in chan receive (nil chan) at main.go:3; a nil channel: nothing ever ends that wait"},
		{"the harness running user code is a goroutine that could", []Stack{worker(6, "chan receive"), userHarness}, false,
			"in main.helper, blocked in chan receive at main.go:3; " + allBlockedPhrase},
		{"mutex waiters in one function told apart", []Stack{worker(6, "sync.Mutex.Lock"), worker(7, "sync.Mutex.Lock")}, false,
			"deadlocked: main.worker (goroutine 6) blocked in sync.Mutex.Lock at main.go:3; main.worker (goroutine 7) blocked in sync.Mutex.Lock at main.go:3; " + allBlockedPhrase},
	} {
		rep := &Report{Stacks: c.stacks, GoDumpCut: c.cut}
		if got := Phrase(rep.Analyze("")); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}
