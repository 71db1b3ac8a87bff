package hang_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/hang"
	"github.com/triage-dev/triage/internal/testutil/hangers"
)

// TestCaptureABBANamesTheCycle: each thread of the ABBA deadlock is named
// with the thread holding the mutex it waits for, and the cycle is said.
func TestCaptureABBANamesTheCycle(t *testing.T) {
	t.Parallel()
	p := hangers.ABBA(t)
	h := runHung(t, p.Dir, p.Bin)
	want := fmt.Sprintf("deadlocked: one blocked in pthread_mutex_lock at abba.c:%d waits for a mutex held by two; "+
		"two blocked in pthread_mutex_lock at abba.c:%d waits for a mutex held by one; deadlock cycle: one → two → one",
		p.Line(t, "LOCK-B-IN-ONE"), p.Line(t, "LOCK-A-IN-TWO"))
	if got := hang.Phrase(h.report.Analyze("")); got != want {
		h.fatalf(t, "phrase %q\nwant   %q", got, want)
	}
}

// TestCaptureThreeThreadCycle: a cycle of three is said in wait order,
// from whichever thread the deadlock's first stack is.
func TestCaptureThreeThreadCycle(t *testing.T) {
	t.Parallel()
	p := hangers.Cycle3(t)
	h := runHung(t, p.Dir, p.Bin)
	got := hang.Phrase(h.report.Analyze(""))
	for _, w := range []string{
		fmt.Sprintf("one blocked in pthread_mutex_lock at cycle3.c:%d waits for a mutex held by two", p.Line(t, "LOCK-B-IN-ONE")),
		fmt.Sprintf("two blocked in pthread_mutex_lock at cycle3.c:%d waits for a mutex held by three", p.Line(t, "LOCK-C-IN-TWO")),
		fmt.Sprintf("three blocked in pthread_mutex_lock at cycle3.c:%d waits for a mutex held by one", p.Line(t, "LOCK-A-IN-THREE")),
		"; deadlock cycle: one → two → three → one",
	} {
		if !strings.HasPrefix(got, "deadlocked: ") || !strings.Contains(got, w) {
			h.fatalf(t, "phrase %q does not say %q", got, w)
		}
	}
}

// TestCaptureHolderBlockedInRead: two threads wait for a mutex whose
// holder is blocked reading a pipe: the holder is named with where it is,
// the waiters (both in the same function) by their LWPs, and no deadlock
// is claimed.
func TestCaptureHolderBlockedInRead(t *testing.T) {
	t.Parallel()
	p := hangers.HolderReads(t)
	h := runHung(t, p.Dir, p.Bin)
	got := hang.Phrase(h.report.Analyze(""))
	lock, read := p.Line(t, "LOCK-HELD"), p.Line(t, "READ-HOLDING")
	re := regexp.MustCompile(fmt.Sprintf(`^waiting for locks: waiter \(LWP (\d+)\) blocked in pthread_mutex_lock at holdread\.c:%d `+
		`waits for a mutex held by reader, blocked in read at holdread\.c:%d; `+
		`waiter \(LWP (\d+)\) blocked in pthread_mutex_lock at holdread\.c:%d waits for a mutex held by reader$`, lock, read, lock))
	m := re.FindStringSubmatch(got)
	if m == nil || m[1] == m[2] {
		h.fatalf(t, "phrase %q, want it to match %s", got, re)
	}
	if n := len(h.report.Stuck); n != 3 || !h.report.Stuck[2].Holder {
		h.fatalf(t, "stuck %+v: want the two waiters and the holder", h.report.Stuck)
	}
}

// TestCaptureRWLockWriter: a reader and a writer wait for a pthread rwlock
// whose writer is blocked reading a pipe: both are named with that writer
// (glibc's __cur_writer) and where it is.
func TestCaptureRWLockWriter(t *testing.T) {
	t.Parallel()
	p := hangers.RWLockHeld(t)
	h := runHung(t, p.Dir, p.Bin)
	got := hang.Phrase(h.report.Analyze(""))
	want := fmt.Sprintf("waiting for locks: reader blocked in pthread_rwlock_rdlock at rwheld.c:%d waits for a rwlock held for writing by holder, blocked in read at rwheld.c:%d; "+
		"writer blocked in pthread_rwlock_wrlock at rwheld.c:%d waits for a rwlock held for writing by holder",
		p.Line(t, "RDLOCK-HELD"), p.Line(t, "READ-WRITING"), p.Line(t, "WRLOCK-HELD"))
	if got != want {
		h.fatalf(t, "phrase %q\nwant   %q", got, want)
	}
}
