package hang

import (
	"slices"
	"strings"
)

// maxCycle bounds the threads of a lock cycle kept in Stuck.
const maxCycle = 8

// withHolders completes the picked stacks when a mutex waiter's holder is
// known (Stuck.HeldBy): a cycle of waiters, each waiting for a mutex the
// next holds, comes first, whichever waiter the pick began with; then the
// other picked stacks; then each named holder that waits for no lock
// itself (Holder), so that the verdict says where it is.
func (r *Report) withHolders(all, picked []Stuck) []Stuck {
	if !slices.ContainsFunc(picked, func(s Stuck) bool { return s.HeldBy != 0 }) {
		return picked
	}
	var out []Stuck
	for _, s := range picked {
		if c := cycleFrom(all, s.LWP); len(c) > 0 {
			for _, i := range c[:min(len(c), maxCycle)] {
				out = append(out, all[i])
			}
			break
		}
	}
	has := func(lwp int) bool { return slices.ContainsFunc(out, func(s Stuck) bool { return s.LWP == lwp }) }
	for _, s := range picked {
		if s.LWP == 0 || !has(s.LWP) {
			out = append(out, s)
		}
	}
	for _, s := range slices.Clone(out) {
		if s.HeldBy == 0 || has(s.HeldBy) {
			continue
		}
		if h, ok := r.holderStuck(all, s.HeldBy); ok {
			out = append(out, h)
		}
	}
	return out
}

// countLocked counts the stacks named for a lock wait of their own.
func countLocked(ss []Stuck) int {
	n := 0
	for _, s := range ss {
		if s.Lock && !s.Holder {
			n++
		}
	}
	return n
}

// cycleFrom follows the holders from the stack of thread lwp among ss
// and returns the indexes in ss of the cycle it runs into, in wait
// order; nil when a holder is unknown or waits for no lock.
func cycleFrom(ss []Stuck, lwp int) []int {
	at := func(lwp int) int {
		if lwp == 0 {
			return -1
		}
		return slices.IndexFunc(ss, func(s Stuck) bool { return s.LWP == lwp })
	}
	var path []int
	for i := at(lwp); i >= 0 && len(path) <= len(ss); i = at(ss[i].HeldBy) {
		if j := slices.Index(path, i); j >= 0 {
			return path[j:]
		}
		path = append(path, i)
	}
	return nil
}

// holderStuck is where the holder thread lwp is: its first user frame, or
// with none its blocking call alone.
func (r *Report) holderStuck(all []Stuck, lwp int) (Stuck, bool) {
	if i := slices.IndexFunc(all, func(s Stuck) bool { return s.LWP == lwp }); i >= 0 {
		h := all[i]
		h.Holder = true
		return h, true
	}
	i := slices.IndexFunc(r.Stacks, func(st Stack) bool { return st.Kind == KindThread && st.LWP == lwp })
	if i < 0 {
		return Stuck{}, false
	}
	st := &r.Stacks[i]
	h := Stuck{Stack: i, Kind: st.Kind, ID: st.ID, LWP: lwp, Holder: true}
	h.Reason, _, _ = nativeWait(st.Frames)
	if h.Reason == "" || st.State == "running" {
		h.Reason = "running"
	}
	return h, true
}

// goBlocked are the Go runtime's wait reasons that only another goroutine
// ends: no timer, no syscall, no network and no running code.
var goBlocked = map[string]bool{
	"chan receive": true, "chan send": true, "select": true, "select (no cases)": true,
	"chan receive (nil chan)": true, "chan send (nil chan)": true, "semacquire": true,
	"sync.Mutex.Lock": true, "sync.RWMutex.Lock": true, "sync.RWMutex.RLock": true,
	"sync.WaitGroup.Wait": true, "sync.Cond.Wait": true,
}

// allGoroutinesBlocked reports whether one whole goroutine dump was read
// and every goroutine in it, but the runtime's own (GC workers, the
// finalizer, idle ones), waited for another one (goBlocked). It does
// not say that none will ever be woken: a channel's other end may be a
// timer's or a signal's, which the dump does not tell apart.
func (r *Report) allGoroutinesBlocked() bool {
	if r.GoDumpCut {
		return false
	}
	n := 0
	for i := range r.Stacks {
		st := &r.Stacks[i]
		if st.Kind != KindGoroutine || runtimeOnly(st) {
			continue
		}
		if !goBlocked[st.State] {
			return false
		}
		n++
	}
	return n > 0
}

// aloneBlocked reports whether goroutine stack i, blocked on a channel or
// a lock (goBlocked), is the only one of a whole dump that could act: each
// other runs the runtime's code alone, or is a test harness's (package
// testing, a test binary's generated main) waiting for a test to end, which
// it does not send to, unlock or signal. What the dump proves is that no
// goroutine is left to end the wait; a timer's channel or a signal's the
// runtime fills is not a goroutine.
func (r *Report) aloneBlocked(i int) bool {
	if r.GoDumpCut || !goBlocked[r.Stacks[i].State] {
		return false
	}
	for j := range r.Stacks {
		st := &r.Stacks[j]
		if j == i || st.Kind != KindGoroutine || runtimeOnly(st) || harnessWaiting(st) {
			continue
		}
		return false
	}
	return true
}

// harnessWaiting reports whether a goroutine is a test harness's, blocked
// waiting: every frame the runtime's, package testing's or a test binary's
// generated main's (_testmain.go).
func harnessWaiting(st *Stack) bool {
	if !goBlocked[st.State] {
		return false
	}
	for _, f := range st.Frames {
		fn := f.Function
		if !strings.HasPrefix(fn, "runtime.") && !strings.HasPrefix(fn, "internal/runtime/") &&
			!strings.HasPrefix(fn, "testing.") && !strings.HasSuffix(f.File, "_testmain.go") {
			return false
		}
	}
	return true
}

// aloneEnds says, after a lone goroutine's wait (Stuck.Alone), who is
// missing; a wait on a nil channel, or a select of no cases, never ends
// whoever is left.
func aloneEnds(reason string) string {
	switch reason {
	case "chan receive (nil chan)", "chan send (nil chan)":
		return "a nil channel: nothing ever ends that wait"
	case "select (no cases)":
		return "a select with no cases never returns"
	case "chan receive":
		return "no other goroutine is left that could send"
	case "chan send":
		return "no other goroutine is left that could receive"
	case "select":
		return "no other goroutine is left that could send or receive"
	case "sync.WaitGroup.Wait":
		return "no other goroutine is left that could call Done"
	case "sync.Cond.Wait":
		return "no other goroutine is left that could signal it"
	case "semacquire":
		return "no other goroutine is left that could release it"
	}
	return "no other goroutine is left that could unlock it"
}

// runtimeOnly reports whether a goroutine runs the runtime's code alone:
// one of its own, which a SIGQUIT dump lists too, whatever it waits for.
func runtimeOnly(st *Stack) bool {
	if st.ID == 0 { // the scheduler's own (g0), idle or looking for work
		return true
	}
	for _, f := range st.Frames {
		if !strings.HasPrefix(f.Function, "runtime.") && !strings.HasPrefix(f.Function, "internal/runtime/") {
			return false
		}
	}
	return true
}
