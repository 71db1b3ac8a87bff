package debugger

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/crashsite"
)

// ThreadsDescribed bounds the threads whose frames ListThreads fetches
// (the stop's thread and the first others): each costs the debugger a
// backtrace.
const ThreadsDescribed = 12

// threadFrames is how many frames of a thread are looked through for its
// own code: a blocking call puts it a few below the top (Go's mutex wait,
// seven).
const threadFrames = 12

// ThreadList is the target's threads at one stop.
type ThreadList struct {
	// Threads are every thread the debugger listed, in its order; the
	// stop's thread and the first others (ThreadsDescribed in all) have
	// their State and Frame, when there is more than one thread.
	Threads []Thread
	// Stopped is the ID of the thread the stop is in; 0 when not known.
	Stopped int
}

// ListThreads lists b's threads at its stop, each described by its top
// frame in the program's own code and what it does there. Through a
// Manager's backend the list is kept for the stop, so that a second call
// (debug_stack after a stop's report) asks the debugger nothing; a call
// that moves the target forgets it.
func ListThreads(ctx context.Context, b Backend) (ThreadList, error) {
	if o, ok := b.(*observed); ok {
		return o.threadList(ctx)
	}
	return listThreads(ctx, b)
}

func listThreads(ctx context.Context, b Backend) (ThreadList, error) {
	threads, err := b.Threads(ctx)
	if err != nil {
		return ThreadList{}, err
	}
	stop := b.State().LastStop
	l := ThreadList{Threads: threads, Stopped: stoppedThread(threads, stop)}
	if len(threads) < 2 {
		return l, nil
	}
	described := 0
	for i := range l.Threads {
		t := &l.Threads[i]
		if described >= ThreadsDescribed-1 && t.ID != l.Stopped {
			continue
		}
		if t.ID != l.Stopped {
			described++
		}
		describeThread(ctx, b, t, stop, t.ID == l.Stopped)
	}
	if l.Stopped == 0 {
		l.findShown(ctx, b, stop)
	}
	return l, nil
}

// findShown makes the thread whose stack the backend shows by default the
// stopped one, when the stop names none (dlv's pause names no goroutine):
// the one described thread whose own frame is that stack's.
func (l *ThreadList) findShown(ctx context.Context, b Backend, stop *Stop) {
	frames, err := b.Stack(ctx, 0, threadFrames)
	own := OwnFrame(frames)
	if err != nil || own < 0 {
		return
	}
	f, at := frames[own], -1
	for i, t := range l.Threads {
		if t.Own && t.Frame != nil && t.Frame.Function == f.Function && t.Frame.Line == f.Line && t.Frame.Address == f.Address {
			if at >= 0 {
				return
			}
			at = i
		}
	}
	if at >= 0 {
		t := &l.Threads[at]
		l.Stopped, t.Reason = t.ID, stopWords(t, stop)
	}
}

// stoppedThread is the ID of the thread stop is in: the one the stop
// names, else the one lldb gives a stop reason other than the SIGSTOP of
// an attach, else 0.
func stoppedThread(threads []Thread, stop *Stop) int {
	if stop != nil && slices.ContainsFunc(threads, func(t Thread) bool { return t.ID == stop.ThreadID }) {
		return stop.ThreadID
	}
	for _, t := range threads {
		if t.Reason != "" && t.Reason != "signal SIGSTOP" {
			return t.ID
		}
	}
	return 0
}

// describeThread fetches t's top frames and says where its own code is
// and what it does there; a thread whose frames cannot be read is left
// undescribed.
func describeThread(ctx context.Context, b Backend, t *Thread, stop *Stop, stopped bool) {
	frames, err := b.Stack(ctx, t.ID, threadFrames)
	if err != nil || len(frames) == 0 {
		return
	}
	own := OwnFrame(frames)
	f := frames[0]
	if own >= 0 {
		f = frames[own]
	}
	t.Frame, t.Own = &f, own >= 0
	if own > 0 {
		t.State = callWords(frames[own-1].Function)
	}
	if stopped {
		t.Reason = stopWords(t, stop)
		if t.State == "" {
			t.State = "stopped: " + t.Reason
		}
	}
}

// stopWords says why the stop's thread stopped: a pause's stop is the
// pause (lldb calls it a SIGSTOP), else lldb's words for it, else the
// stop's signal or reason.
func stopWords(t *Thread, stop *Stop) string {
	switch {
	case stop != nil && stop.Reason == StopPause:
		return string(StopPause)
	case t.Reason != "":
		return t.Reason
	case stop == nil:
		return "stopped"
	case stop.Signal != "":
		return "signal " + stop.Signal
	}
	return string(stop.Reason)
}

// OwnFrame is the index of the first frame in the program's own code
// with a source location, by crashsite's rule (the crash site's: not
// libc, libpthread, a runtime or a dependency); -1 when there is none.
func OwnFrame(frames []Frame) int {
	for i, f := range frames {
		if f.Function == "" || !siteFrame(f).HasSource() {
			continue
		}
		if crashsite.OriginOf(siteFrame(f), "") == crashsite.Project {
			return i
		}
	}
	return -1
}

// siteFrame is f as crashsite's rule reads it. A relative path with a
// directory is read as a build-relative one ("nptl/futex-internal.c",
// as lldb-dap names glibc's sources): the rule knows glibc's by it.
func siteFrame(f Frame) crashsite.Frame {
	file := f.File
	if file != "" && !filepath.IsAbs(file) && strings.Contains(file, "/") && !strings.HasPrefix(file, ".") {
		file = "./" + file
	}
	return crashsite.Frame{Function: f.Function, File: file, Line: f.Line, Module: f.Module}
}

// callNames are the names a person knows a runtime call by, for the ones
// the C library or Go's runtime implements under another.
var callNames = map[string]string{
	"pthread_clockjoin_ex": "pthread_join", "pthread_join_common": "pthread_join",
	"runtime.chanrecv1": "chan receive", "runtime.chanrecv2": "chan receive", "runtime.chansend1": "chan send",
	"runtime.selectgo": "select", "runtime.block": "select {}",
}

// blockingWords mark a call that waits for something.
var blockingWords = []string{"lock", "wait", "join", "sleep", "pause", "read", "recv", "poll", "select", "accept", "futex", "chan ", "sem", "cond"}

// callWords says what a thread's own code is in: the call it made into
// the runtime, "blocked in" it when the call waits.
func callWords(fn string) string {
	name := strings.TrimLeft(fn, "_")
	name = strings.TrimLeft(strings.TrimPrefix(name, "GI_"), "_")
	name = strings.TrimPrefix(name, "libc_")
	if alias, ok := callNames[name]; ok {
		name = alias
	}
	lower := strings.ToLower(name)
	for _, w := range blockingWords {
		if strings.Contains(lower, w) {
			return "blocked in " + name
		}
	}
	return "in " + name
}

// Resolve turns the thread a caller names into the backend's id: an id as
// it is, else a thread's #N as its debugger numbers it, else the Nth
// thread of the list (1-based); else a refusal that lists the threads.
// 0 (the stopped thread), and any n without a list, go as they are.
func (l ThreadList) Resolve(n int) (int, error) {
	if n == 0 || len(l.Threads) == 0 {
		return n, nil
	}
	for _, match := range []func(i int, t Thread) bool{
		func(_ int, t Thread) bool { return t.ID == n },
		func(_ int, t Thread) bool { return t.Num == n },
		func(i int, _ Thread) bool { return i+1 == n },
	} {
		for i, t := range l.Threads {
			if match(i, t) {
				return t.ID, nil
			}
		}
	}
	var sb strings.Builder
	for i := range l.Threads[:min(len(l.Threads), MaxThreadsListed)] {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(l.Label(i))
	}
	if n := len(l.Threads) - MaxThreadsListed; n > 0 {
		fmt.Fprintf(&sb, " and %d more", n)
	}
	return 0, fmt.Errorf("no thread %d: the threads are %s", n, sb.String())
}

// Label is how an answer names thread i: "#N", N as Number gives it.
func (l ThreadList) Label(i int) string { return fmt.Sprintf("#%d", l.Number(i)) }

// Number is the number an answer names thread i by, one Resolve takes
// back to it: its debugger's number, else its place in the list, else its
// id.
func (l ThreadList) Number(i int) int {
	t := l.Threads[i]
	for _, n := range []int{t.Num, i + 1} {
		if id, err := l.Resolve(n); n != 0 && err == nil && id == t.ID {
			return n
		}
	}
	return t.ID
}
