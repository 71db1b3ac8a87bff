package stall

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Kind is what a thread was doing when sampled.
type Kind uint8

const (
	// Other: anything the rule does not know as a wait (a syscall such as
	// write or flock, a page fault, disk I/O, a stopped or traced thread,
	// a thread not examined): it may be progressing.
	Other Kind = iota
	// Running: on a CPU or runnable.
	Running
	// Sleep: on a timer by design (nanosleep, clock_nanosleep, a timerfd
	// read); whatever its length, the program chose to wait.
	Sleep
	// Wait: blocked until an event, or a timeout when Timeout >= 0.
	Wait
	// Gone: a zombie; it neither progresses nor blocks the rest.
	Gone
)

// Thread is one thread of the group at a sample.
type Thread struct {
	Pid, Tid int
	Comm     string
	Kind     Kind
	// Ticks are the thread's user and system CPU time, in clock ticks.
	Ticks uint64
	// Call is the syscall it waits in ("futex", "read"), when known.
	Call string
	// Timeout is what is left of a Wait's timeout; negative for none.
	Timeout time.Duration
	// On says what a read waits on: "stdin", "a pipe", "a socket".
	On string
}

// Sample is the group at one moment.
type Sample struct {
	At      time.Time
	Threads []Thread
	// Output counts the bytes the group has written so far.
	Output int64
}

// Finding is a stall: what every thread was blocked in, for how long.
type Finding struct {
	For     time.Duration // no progress seen for this long
	Threads []Thread      // the live threads, all blocked
}

// Stdin reports whether a thread was blocked reading standard input.
func (f Finding) Stdin() bool {
	return slices.ContainsFunc(f.Threads, func(t Thread) bool { return t.On == "stdin" })
}

// Listening is what Thread.On says of a wait for a connection: accept on
// a socket, or a poll or epoll wait that watches a listening one (Linux).
const Listening = "a listening socket"

// Listens reports whether a thread was blocked waiting for a connection
// (on Listening): a server, idle.
func (f Finding) Listens() bool {
	return slices.ContainsFunc(f.Threads, func(t Thread) bool { return t.On == Listening })
}

// Phrase says what the group was blocked in, for a verdict line when no
// stacks name the place:
//
//	waiting for input on stdin
//	every thread blocked: 2 in futex, 1 in read of a pipe
func (f Finding) Phrase() string {
	if f.Stdin() {
		return "waiting for input on stdin"
	}
	return "every thread blocked: " + f.Waits()
}

// Waits counts the threads by what they wait in: "2 in futex, 1 in read
// of a pipe".
func (f Finding) Waits() string {
	counts := map[string]int{}
	var order []string
	for _, t := range f.Threads {
		what := t.Call
		if what == "" {
			what = "a wait"
		}
		if t.On != "" {
			what += " of " + t.On
		}
		if counts[what] == 0 {
			order = append(order, what)
		}
		counts[what]++
	}
	parts := make([]string, len(order))
	for i, w := range order {
		parts[i] = fmt.Sprintf("%d in %s", counts[w], w)
	}
	return strings.Join(parts, ", ")
}

// Detector applies the rule to successive samples of one group. The zero
// value with Limit set is ready; Limit <= 0 never finds a stall.
type Detector struct {
	Limit time.Duration

	prev  *Sample
	since time.Time // the first sample of the current quiet stretch
}

// Observe takes the next sample (its At must not go back) and reports a
// stall once the group has been blocked, silent and idle since a sample
// at least Limit before this one.
func (d *Detector) Observe(s Sample) (Finding, bool) {
	prev := d.prev
	d.prev = &s
	if d.Limit <= 0 || !d.blocked(s.Threads) {
		d.since = time.Time{}
		return Finding{}, false
	}
	if prev == nil || progressed(*prev, s) || d.since.IsZero() {
		d.since = s.At
		return Finding{}, false
	}
	quiet := s.At.Sub(d.since)
	if quiet < d.Limit {
		return Finding{}, false
	}
	return Finding{For: quiet, Threads: live(s.Threads)}, true
}

// Blocked reports whether one sample of a group (Group) shows it stuck:
// a live thread, and every live thread waiting with no timer of its own
// ending within limit. With no earlier sample to compare, it cannot say
// for how long; a caller about to end the group asks it (process_stop).
func Blocked(ts []Thread, limit time.Duration) bool {
	d := Detector{Limit: limit}
	return d.blocked(ts)
}

// blocked reports whether the group has a live thread and every live
// thread waits with no timer of its own ending within the limit.
func (d *Detector) blocked(ts []Thread) bool {
	n := 0
	for _, t := range ts {
		switch {
		case t.Kind == Gone:
			continue
		case t.Kind != Wait:
			return false
		case t.Timeout >= 0 && t.Timeout <= d.Limit:
			return false // a timer ends it soon enough: a sleeper
		}
		n++
	}
	return n > 0
}

// progressed reports output, CPU time gained, or a thread born or ended
// between two samples.
func progressed(a, b Sample) bool {
	if a.Output != b.Output || len(a.Threads) != len(b.Threads) {
		return true
	}
	ticks := make(map[int]uint64, len(a.Threads))
	for _, t := range a.Threads {
		ticks[t.Tid] = t.Ticks
	}
	for _, t := range b.Threads {
		if was, ok := ticks[t.Tid]; !ok || was != t.Ticks {
			return true
		}
	}
	return false
}

func live(ts []Thread) []Thread {
	var out []Thread
	for _, t := range ts {
		if t.Kind != Gone {
			out = append(out, t)
		}
	}
	return out
}
