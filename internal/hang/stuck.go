package hang

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/coredump"
)

// Stuck is a place where a hung program was stuck: one stack that matters,
// at its first frame in the user's own code.
type Stuck struct {
	Stack int            `json:"stack"` // index in Report.Stacks
	Kind  string         `json:"kind"`  // KindGoroutine or KindThread
	ID    int            `json:"id"`
	Frame coredump.Frame `json:"frame"`
	// Reason is what it waited for: the Go runtime's wait reason, the
	// blocking call a thread was in (pthread_mutex_lock, pthread_join,
	// futex wait), or "running" for one busy in user code.
	Reason string `json:"reason"`
	Lock   bool   `json:"lock,omitempty"` // waiting to take a lock
	Test   string `json:"test,omitempty"` // the running test it belongs to
	// Case is the test framework's case inside Test that the stack runs
	// (Catch2's "popcount counts set bits" inside CTest's test_bits),
	// read from the source of its frame in the test file: a framework
	// that names a case only when it reports a failure never named it.
	Case string `json:"case,omitempty"`
	// LWP is a thread's kernel id; 0 for a goroutine.
	LWP int `json:"lwp,omitempty"`
	// HeldBy is, for a thread waiting for a mutex (or a rwlock), the LWP
	// of the thread holding it (the rwlock's writer), when the lock could
	// be read (Stack.MutexOwner).
	HeldBy int `json:"held_by,omitempty"`
	// Holder marks a stack named for holding a mutex another waits for,
	// not for a wait of its own.
	Holder bool `json:"holder,omitempty"`
	// AllBlocked, on the first of a Go program's stuck goroutines: every
	// goroutine of its dump waited on a channel or a lock, none was
	// running, runnable, in a syscall, asleep or waiting for the network.
	AllBlocked bool `json:"all_blocked,omitempty"`
	// Alone, on the first of a Go program's stuck goroutines, blocked on
	// a channel or a lock: no other goroutine of its dump could end its
	// wait, for every other is the runtime's own or a test harness's
	// waiting for tests to end (aloneBlocked).
	Alone bool `json:"alone,omitempty"`
	// MoreLocked, on the first: how many more stacks waited on locks than
	// are named (a deadlock names maxDeadlocked).
	MoreLocked int `json:"more_locked,omitempty"`
}

// maxDeadlocked bounds the lock waiters a deadlock names.
const maxDeadlocked = 4

// Analyze picks the stacks that matter and where each was stuck. test is
// the running test's name when known ("TestWaitsForever",
// "tests::spins"). In order:
//
//  1. the stacks running the test (by function, or a thread named after
//     it, as Rust's libtest names its threads; without a name, a libtest
//     thread still running a test: LibtestName); if it waits on a lock
//     while other stacks do too, those are named with it;
//  2. two or more stacks waiting on locks: a deadlock, all named;
//  3. stacks busy in user code (a loop);
//  4. the main goroutine or thread;
//  5. the first stack that reaches user code at all.
func (r *Report) Analyze(test string) []Stuck {
	all := r.stuckStacks()
	var locks []Stuck
	for _, s := range all {
		if s.Lock {
			locks = append(locks, s)
		}
	}
	if test == "" {
		// A Rust test still running on its libtest thread is the
		// running test, though no report said so.
		for _, s := range all {
			if test = LibtestName(&r.Stacks[s.Stack]); test != "" {
				break
			}
		}
	}
	r.Stuck = r.withHolders(all, r.pick(all, locks, test))
	if len(r.Stuck) > 0 {
		r.Stuck[0].AllBlocked = r.Stuck[0].Kind == KindGoroutine && r.allGoroutinesBlocked()
		r.Stuck[0].Alone = r.Stuck[0].AllBlocked && r.aloneBlocked(r.Stuck[0].Stack)
		if named := countLocked(r.Stuck); named >= 2 {
			r.Stuck[0].MoreLocked = len(locks) - named
		}
	}
	for i := range r.Stuck {
		// When no report said which test ran, a Rust libtest thread does.
		if r.Stuck[i].Test == "" && len(r.Stuck) == 1 {
			r.Stuck[i].Test = LibtestName(&r.Stacks[r.Stuck[i].Stack])
		}
	}
	return r.Stuck
}

// stuckStacks is where each stack was stuck, in the order of the program's
// own numbering (thread 2 before 3, goroutine 1 first), whatever order the
// debugger printed them in.
func (r *Report) stuckStacks() []Stuck {
	var all []Stuck
	for i := range r.Stacks {
		if s, ok := stuckAt(i, &r.Stacks[i]); ok {
			all = append(all, s)
		}
	}
	slices.SortStableFunc(all, func(a, b Stuck) int {
		sa, sb := &r.Stacks[a.Stack], &r.Stacks[b.Stack]
		if sa.Pid != sb.Pid {
			return sa.Pid - sb.Pid
		}
		return sa.ID - sb.ID
	})
	return all
}

// pick chooses the stacks that matter: the one running test (with the
// others waiting on locks when it waits on one too), a deadlock, a running
// thread, the main one, or the first.
func (r *Report) pick(all, locks []Stuck, test string) []Stuck {
	if test != "" {
		for _, s := range all {
			if st := &r.Stacks[s.Stack]; runsTest(st, test) {
				s.Test = test
				switch {
				case s.Lock && len(locks) >= 2:
					return deadlock(s, locks)
				case len(locks) >= 2 && !runsTest(&Stack{Kind: st.Kind, Frames: st.Frames}, test):
					// Named by its thread's name alone (CTest's test
					// named as its program): every thread bears it, so
					// it does not tell the stuck one; the deadlock does.
					return deadlock(locks[0], locks)
				}
				return []Stuck{s}
			}
		}
	}
	if len(locks) >= 2 {
		return deadlock(locks[0], locks)
	}
	for _, s := range all {
		if s.Reason == "running" {
			return []Stuck{s}
		}
	}
	for _, s := range all {
		if isMain(&r.Stacks[s.Stack]) {
			return []Stuck{s}
		}
	}
	if len(all) > 0 {
		return all[:1]
	}
	return nil
}

// deadlock is first and the other stacks waiting on locks, up to
// maxDeadlocked.
func deadlock(first Stuck, locks []Stuck) []Stuck {
	out := []Stuck{first}
	for _, s := range locks {
		if s.Stack != first.Stack && len(out) < maxDeadlocked {
			out = append(out, s)
		}
	}
	return out
}

// LibtestName is the name of the Rust test a thread runs, or "": libtest
// runs a test as a closure of its function on a thread of its own
// (test::__rust_begin_short_backtrace calls "krate::tests::spins::{closure#0}",
// which calls the test), and names the thread after the test. The frames
// give the whole name ("tests::spins": the path without the crate); the
// thread's name is taken only when no frame gives it and the kernel kept it
// whole (it keeps 15 bytes).
func LibtestName(st *Stack) string {
	if st.Kind != KindThread {
		return ""
	}
	runner := slices.IndexFunc(st.Frames, func(f coredump.Frame) bool {
		return strings.HasPrefix(f.Function, "test::__rust_begin_short_backtrace") || strings.HasPrefix(f.Function, "test::run_test")
	})
	if runner < 0 {
		return ""
	}
	for i := runner - 1; i >= 0; i-- {
		fn := st.Frames[i].Function
		for _, closure := range []string{"::{closure#0}", "::{{closure}}"} {
			body, ok := strings.CutSuffix(fn, closure)
			if !ok || strings.HasPrefix(body, "core::") || strings.HasPrefix(body, "std::") || strings.HasPrefix(body, "test::") {
				continue
			}
			if _, name, ok := strings.Cut(body, "::"); ok && name != "" && !strings.ContainsAny(name, "<{ ") {
				return name
			}
		}
	}
	if n := st.Name; n != "" && len(n) < 15 && n != "main" && !strings.ContainsAny(n, " <") {
		return n
	}
	return ""
}

// stuckAt finds the stack's first user frame and the reason it waits.
func stuckAt(i int, st *Stack) (Stuck, bool) {
	u := slices.IndexFunc(st.Frames, isUserFrame)
	if u < 0 {
		return Stuck{}, false
	}
	s := Stuck{Stack: i, Kind: st.Kind, ID: st.ID, LWP: st.LWP, Frame: st.Frames[u]}
	if st.Kind == KindGoroutine {
		s.Reason = st.State
		s.Lock = goLockWait(st.State, st.Frames[:u])
		return s, true
	}
	// The frames decide over the kernel's state, read a moment before
	// the debugger stopped the thread: one in a blocking call is blocked
	// there (it may have been on its way in, or just woken).
	var known bool
	s.Reason, s.Lock, known = nativeWait(st.Frames[:u])
	if s.Reason == rwLock {
		s.Reason = cmp.Or(rwlockCall(st.Frames[:u]), rwLock)
	}
	if s.Lock {
		s.HeldBy = st.MutexOwner
	}
	if !known && (st.State == "running" || s.Reason == "") {
		s.Reason = "running"
	}
	return s, true
}

// goLockWait: the runtime names mutex waits since Go 1.20
// (sync.Mutex.Lock, sync.RWMutex.RLock); older ones say semacquire,
// recognised by the sync frames above it.
func goLockWait(state string, lib []coredump.Frame) bool {
	if strings.Contains(state, "Mutex") {
		return true
	}
	for _, f := range lib {
		if strings.HasPrefix(f.Function, "sync.(*Mutex).") || strings.HasPrefix(f.Function, "sync.(*RWMutex).") {
			return true
		}
	}
	return false
}

// nativeCalls name a thread's blocking call from the library frames above
// its first user frame, innermost user-facing name first.
var nativeCalls = []struct {
	match  func(fn string) bool
	reason string
	lock   bool
}{
	{isMutexLock, "pthread_mutex_lock", true},
	{func(fn string) bool { return strings.Contains(fn, "pthread_rwlock_") }, rwLock, true},
	{func(fn string) bool { return strings.Contains(fn, "Mutex") && strings.Contains(fn, "lock") }, "Mutex::lock", true},
	{func(fn string) bool { return strings.Contains(fn, "RwLock") }, "RwLock", true},
	{func(fn string) bool { return strings.Contains(fn, "pthread_cond_") || strings.Contains(fn, "Condvar") }, "condition wait", false},
	{func(fn string) bool {
		return strings.Contains(fn, "pthread_join") || strings.Contains(fn, "clockjoin") || strings.Contains(fn, "JoinHandle") || strings.Contains(fn, "JoinInner")
	}, "thread join", false},
	{func(fn string) bool { return strings.Contains(fn, "mpsc") || strings.Contains(fn, "mpmc") }, "channel receive", false},
	{func(fn string) bool { return strings.Contains(fn, "sleep") }, "sleep", false},
	{func(fn string) bool { return strings.Contains(fn, "accept") }, "accept", false},
	{func(fn string) bool { return strings.Contains(fn, "poll") || strings.Contains(fn, "select") }, "poll", false},
	{func(fn string) bool { return strings.HasSuffix(fn, "read") || strings.Contains(fn, "recv") }, "read", false},
	{func(fn string) bool { return strings.Contains(fn, "futex") }, "futex wait", false},
}

// rwLock names a wait in a pthread rwlock whose call is not known;
// rwRead and rwWrite, one in pthread_rwlock_rdlock and _wrlock.
const (
	rwLock  = "pthread_rwlock"
	rwRead  = "pthread_rwlock_rdlock"
	rwWrite = "pthread_rwlock_wrlock"
)

// rwlockCall is the rwlock call among frames (glibc's
// ___pthread_rwlock_wrlock, __pthread_rwlock_rdlock_full64): rwRead,
// rwWrite, or "" for none (a timed one counts as its call).
func rwlockCall(frames []coredump.Frame) string {
	for _, f := range frames {
		switch fn := f.Function; {
		case !strings.Contains(fn, "pthread_rwlock_"):
		case strings.Contains(fn, "wrlock"):
			return rwWrite
		case strings.Contains(fn, "rdlock"):
			return rwRead
		}
	}
	return ""
}

// isMutexLock reports whether a native function is a pthread mutex's lock
// (glibc's ___pthread_mutex_lock, __lll_lock_wait).
func isMutexLock(fn string) bool {
	return strings.Contains(fn, "pthread_mutex_lock") || strings.Contains(fn, "lll_lock_wait")
}

func isMutexLockFrame(f coredump.Frame) bool { return isMutexLock(f.Function) }

// nativeWait names the blocking call among a thread's library frames;
// known is false when none is a call nativeCalls knows (the outermost
// library function is named then).
func nativeWait(lib []coredump.Frame) (reason string, lock, known bool) {
	for _, c := range nativeCalls {
		for _, f := range lib {
			if c.match(f.Function) {
				return c.reason, c.lock, true
			}
		}
	}
	if len(lib) > 0 {
		return strings.TrimLeft(lib[len(lib)-1].Function, "_"), false, false
	}
	return "", false, false
}

// runsTest reports whether a stack runs the named test: a frame of the
// test function (or of a closure in it, for Go subtests), or a thread named
// after it (the kernel keeps 15 bytes of a name).
func runsTest(st *Stack, test string) bool {
	base, _, _ := strings.Cut(test, "/") // Go subtest: its parent's function
	if st.Name != "" && (st.Name == test || len(st.Name) == 15 && strings.HasPrefix(test, st.Name)) {
		return true
	}
	for _, f := range st.Frames {
		fn := f.Function
		if fn == "" {
			continue
		}
		if st.Kind == KindGoroutine {
			fn = path.Base(fn) // "example.com/m/pkg.TestX.func1" -> "pkg.TestX.func1"
			_, fn, _ = strings.Cut(fn, ".")
			if fn == base || strings.HasPrefix(fn, base+".") {
				return true
			}
			continue
		}
		if fn == test || strings.HasSuffix(fn, "::"+test) || strings.HasSuffix(fn, "::"+test+"::{{closure}}") {
			return true
		}
	}
	return false
}

func isMain(st *Stack) bool {
	if st.Kind == KindGoroutine {
		return st.ID == 1
	}
	return st.ID == 1 || st.LWP != 0 && st.LWP == st.Pid
}
