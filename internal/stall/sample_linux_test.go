//go:build linux && (amd64 || arm64)

package stall

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/hangers"
)

func TestParseStat(t *testing.T) {
	line := "4242 (a (weird) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 7 5 0 0 20 0 1 0 123 0 0\n"
	th, ok := parseStat(line)
	if !ok || th.Comm != "a (weird) name" || th.Kind != Wait || th.Ticks != 12 || th.Timeout != -1 {
		t.Fatalf("parseStat = %+v, %v", th, ok)
	}
	for state, kind := range map[string]Kind{"R": Running, "Z": Gone, "D": Other, "T": Other, "t": Other} {
		if th, _ := parseStat("1 (x) " + state + " 1 1 1 0 -1 0 0 0 0 0 3 4 0 0\n"); th.Kind != kind {
			t.Errorf("state %s: kind %v, want %v", state, th.Kind, kind)
		}
	}
	if _, ok := parseStat("1 (x) S 1"); ok {
		t.Error("a short stat line parsed")
	}
}

func TestParseSyscall(t *testing.T) {
	nr, args, ok := parseSyscall("202 0xc000054948 0x80 0x0 0x0 0x0 0x0 0x7ffe5f0a8f08 0x46e0e3\n")
	if !ok || nr != 202 || args[0] != 0xc000054948 || args[1] != 0x80 {
		t.Fatalf("parseSyscall = %d %x %v", nr, args, ok)
	}
	for _, s := range []string{"running\n", "-1 0x7ffe5f0a8f08 0x46e0e3\n", ""} {
		if _, _, ok := parseSyscall(s); ok {
			t.Errorf("%q parsed as a syscall", s)
		}
	}
}

// start runs argv in its own group until the test ends, and returns its
// pid once it printed "ready" (at once when stdin is given: cat prints
// nothing).
func start(t testing.TB, stdin io.Reader, argv ...string) int {
	t.Helper()
	ready := testutil.NewExpireOn("ready")
	p, err := spawn.Start(context.Background(), spawn.Spec{Argv: argv, Stdout: ready, Stdin: stdin, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(0) })
	if stdin == nil {
		<-ready.Done()
	}
	return p.Pid()
}

func startB(b *testing.B, argv ...string) int { return start(b, nil, argv...) }

// until samples the group until ok holds of its threads, for at most a
// minute (a thread takes a moment to reach its wait after "ready").
func until(t testing.TB, pgid int, what string, ok func([]Thread) bool) []Thread {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var ts []Thread
	for time.Now().Before(deadline) {
		if ts = Group(pgid); ok(ts) {
			return ts
		}
		<-tick.C
	}
	t.Fatalf("never %s: last sample %+v", what, ts)
	return nil
}

// blockedFor is the detector's test of one sample: every live thread
// blocked past limit.
func blockedFor(limit time.Duration) func([]Thread) bool {
	d := Detector{Limit: limit}
	return d.blocked
}

func some(f func(Thread) bool) func([]Thread) bool {
	return func(ts []Thread) bool {
		for _, t := range ts {
			if f(t) {
				return true
			}
		}
		return false
	}
}

func TestGroupBlocked(t *testing.T) {
	t.Parallel()
	t.Run("pipe read", func(t *testing.T) {
		t.Parallel()
		pid := start(t, nil, hangers.PipeReader(t).Bin)
		ts := until(t, pid, "blocked", blockedFor(30*time.Second))
		if len(ts) != 1 || ts[0].Call != "read" || ts[0].On != "a pipe" {
			t.Errorf("threads %+v, want one in read of a pipe", ts)
		}
	})
	t.Run("stdin", func(t *testing.T) {
		t.Parallel()
		r, w := io.Pipe()
		t.Cleanup(func() { w.Close() })
		pid := start(t, r, "cat")
		ts := until(t, pid, "blocked", blockedFor(30*time.Second))
		if f := (Finding{Threads: ts}); !f.Stdin() {
			t.Errorf("threads %+v: not waiting on stdin", ts)
		}
	})
	t.Run("ABBA mutexes", func(t *testing.T) {
		t.Parallel()
		pid := start(t, nil, hangers.ABBA(t).Bin)
		ts := until(t, pid, "blocked", blockedFor(30*time.Second))
		if len(ts) != 3 {
			t.Errorf("threads %+v, want 3", ts)
		}
	})
	t.Run("Go channels behind a long timer", func(t *testing.T) {
		t.Parallel()
		pid := start(t, nil, hangers.GoChanDeadlock(t).Bin)
		ts := until(t, pid, "blocked", blockedFor(30*time.Second))
		t.Logf("threads %+v", ts)
	})
	t.Run("wait4 for a blocked child", func(t *testing.T) {
		t.Parallel()
		bin := hangers.PipeReader(t).Bin
		pid := start(t, nil, "sh", "-c", `"$0"; echo done`, bin)
		until(t, pid, "blocked", some(func(t Thread) bool { return t.Call == "wait4" && t.Kind == Wait }))
		until(t, pid, "blocked", blockedFor(30*time.Second))
	})
}

func TestGroupNotBlocked(t *testing.T) {
	t.Parallel()
	t.Run("sleep in steps", func(t *testing.T) {
		t.Parallel()
		pid := start(t, nil, hangers.SleepSteps(t).Bin)
		until(t, pid, "asleep", some(func(t Thread) bool { return t.Kind == Sleep }))
	})
	t.Run("spin", func(t *testing.T) {
		t.Parallel()
		pid := start(t, nil, hangers.Spin(t).Bin)
		until(t, pid, "running", some(func(t Thread) bool { return t.Kind == Running }))
	})
	t.Run("an orphan of the group runs", func(t *testing.T) {
		t.Parallel()
		// The subshell exits at once: spin, still in the group, is
		// adopted by another parent and no descendant of the leader.
		spin, reader := hangers.Spin(t).Bin, hangers.PipeReader(t).Bin
		pid := start(t, nil, "sh", "-c", `("$0" &); "$1"`, spin, reader)
		until(t, pid, "seeing the orphan run", some(func(t Thread) bool { return t.Comm == "spin" && t.Kind == Running }))
	})
	t.Run("absolute futex timeout", func(t *testing.T) {
		t.Parallel()
		pid := start(t, nil, hangers.TimedWaiter(t).Bin, "5")
		until(t, pid, "in a timed futex wait", some(func(t Thread) bool {
			return t.Call == "futex" && t.Timeout > 0 && t.Timeout <= 5*time.Second
		}))
	})
	t.Run("Go timer", func(t *testing.T) {
		t.Parallel()
		pid := start(t, nil, hangers.Printer(t).Bin, "5")
		until(t, pid, "in a timed wait", some(func(t Thread) bool {
			return t.Kind == Wait && t.Timeout > 0 && t.Timeout <= 5*time.Second
		}))
	})
}
