package hang

import (
	"fmt"
	"path"
	"strings"
)

// allBlockedPhrase is said of a Go program whose dump shows every
// goroutine waiting for another (Stuck.AllBlocked): the dump gives no
// channel's address, so which goroutine could have woken which is not
// said.
const allBlockedPhrase = "all goroutines are blocked: no goroutine is running or runnable"

// Phrase says where a hung program was stuck, for a verdict line:
//
//	in TestWaitsForever, blocked in chan receive at hang_test.go:7
//	in spin, running at spin.c:4
//	in test_bits (popcount counts set bits), running at bits.cpp:29
//	deadlocked: one blocked in pthread_mutex_lock at abba.c:8; two blocked in pthread_mutex_lock at abba.c:14
//	deadlocked: one blocked in pthread_mutex_lock at abba.c:8 waits for a mutex held by two; two blocked in pthread_mutex_lock at abba.c:14 waits for a mutex held by one; deadlock cycle: one → two → one
//	waiting for locks: waiter (LWP 12) blocked in pthread_mutex_lock at x.c:20 waits for a mutex held by reader, blocked in read at x.c:9; waiter (LWP 13) …
func Phrase(stuck []Stuck) string {
	p := phrase(stuck)
	if p == "" {
		return ""
	}
	if more := stuck[0].MoreLocked; more > 0 {
		p += fmt.Sprintf("; and %d more waiting for locks", more)
	}
	switch {
	case stuck[0].Alone && len(stuck) == 1:
		p += "; " + aloneEnds(stuck[0].Reason)
	case stuck[0].AllBlocked:
		p += "; " + allBlockedPhrase
	}
	return p
}

func phrase(stuck []Stuck) string {
	for _, s := range stuck {
		if s.HeldBy != 0 {
			return lockPhrase(stuck)
		}
	}
	switch len(stuck) {
	case 0:
		return ""
	case 1:
		s := stuck[0]
		who := s.Test
		if who == "" {
			who = shortFunction(s.Frame.Function)
		} else if s.Case != "" && s.Case != who {
			who += " (" + s.Case + ")"
		}
		return fmt.Sprintf("in %s, %s", who, where(s))
	}
	names := stuckNames(stuck)
	parts := make([]string, len(stuck))
	for i, s := range stuck {
		parts[i] = names[i] + " " + where(s)
	}
	return "deadlocked: " + strings.Join(parts, "; ")
}

// lockPhrase says which thread holds the mutex each waiter waits for, and
// where a holder that waits for no lock is; a cycle of waiters is a
// deadlock, said as the cycle.
func lockPhrase(stuck []Stuck) string {
	names := stuckNames(stuck)
	nameOf := func(lwp int) (string, int) {
		for i, s := range stuck {
			if s.LWP == lwp {
				return names[i], i
			}
		}
		return fmt.Sprintf("thread LWP %d", lwp), -1
	}
	var parts []string
	said := map[int]bool{}
	for i, s := range stuck {
		if s.Holder {
			continue
		}
		p := names[i] + " " + where(s)
		if s.HeldBy != 0 {
			h, j := nameOf(s.HeldBy)
			p += " waits for " + lockHeld(s) + " by " + h
			if j >= 0 && stuck[j].Holder && !said[j] {
				p, said[j] = p+", "+where(stuck[j]), true
			}
		}
		parts = append(parts, p)
	}
	if c := cycleFrom(stuck, stuck[0].LWP); len(c) > 0 {
		ring := make([]string, 0, len(c)+1)
		for _, i := range c {
			ring = append(ring, names[i])
		}
		ring = append(ring, names[c[0]])
		return "deadlocked: " + strings.Join(parts, "; ") + "; deadlock cycle: " + strings.Join(ring, " → ")
	}
	if len(parts) == 1 && !stuck[0].Holder {
		who := stuck[0].Test
		if who == "" {
			who = names[0]
		}
		return fmt.Sprintf("in %s, %s", who, strings.TrimPrefix(parts[0], names[0]+" "))
	}
	return "waiting for locks: " + strings.Join(parts, "; ")
}

// lockHeld is what a waiter whose holder is named waits for: "a mutex
// held", or "a rwlock held for writing" (glibc keeps its writer only).
func lockHeld(s Stuck) string {
	if strings.HasPrefix(s.Reason, rwLock) {
		return "a rwlock held for writing"
	}
	return "a mutex held"
}

// stuckNames names each stack by the function it is stuck in, with its
// thread's LWP or its goroutine's id when another stack has the same
// function, and by its thread alone when it has no user frame.
func stuckNames(stuck []Stuck) []string {
	count := map[string]int{}
	names := make([]string, len(stuck))
	for i, s := range stuck {
		names[i] = shortFunction(s.Frame.Function)
		count[names[i]]++
	}
	for i, s := range stuck {
		switch {
		case s.Frame.Function == "" && s.LWP != 0:
			names[i] = fmt.Sprintf("thread %d (LWP %d)", s.ID, s.LWP)
		case count[names[i]] < 2:
		case s.LWP != 0:
			names[i] += fmt.Sprintf(" (LWP %d)", s.LWP)
		case s.Kind == KindGoroutine:
			names[i] += fmt.Sprintf(" (goroutine %d)", s.ID)
		}
	}
	return names
}

// where is what a stack was doing and at which line; no line for a
// holder with no frame of the user's.
func where(s Stuck) string {
	loc := ""
	if s.Frame.File != "" {
		loc = fmt.Sprintf(" at %s:%d", path.Base(s.Frame.File), s.Frame.Line)
	}
	if s.Reason == "running" {
		return "running" + loc
	}
	return "blocked in " + s.Reason + loc
}

// shortFunction drops a Go function's import path ("example.com/m/pkg.f"
// -> "pkg.f").
func shortFunction(fn string) string {
	if fn == "" {
		return "??"
	}
	if i := strings.LastIndexByte(fn, '/'); i >= 0 && !strings.Contains(fn, "::") {
		return fn[i+1:]
	}
	return fn
}
