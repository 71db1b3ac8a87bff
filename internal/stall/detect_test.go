package stall

import (
	"strings"
	"testing"
	"time"
)

// t0 is the synthetic clock's origin: samples carry their own time, so
// nothing here sleeps.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

// Thread shorthands.
var (
	futexForever = Thread{Tid: 1, Kind: Wait, Call: "futex", Timeout: -1}
	epollLong    = Thread{Tid: 2, Kind: Wait, Call: "epoll_pwait", Timeout: 600 * time.Second}
	sysmon60     = Thread{Tid: 3, Kind: Wait, Call: "futex", Timeout: 60 * time.Second}
	epollShort   = Thread{Tid: 2, Kind: Wait, Call: "epoll_pwait", Timeout: time.Second}
	sleeping     = Thread{Tid: 4, Kind: Sleep, Call: "nanosleep", Timeout: -1}
	running      = Thread{Tid: 5, Kind: Running, Timeout: -1}
	other        = Thread{Tid: 6, Kind: Other, Call: "write", Timeout: -1}
	zombie       = Thread{Tid: 7, Kind: Gone, Timeout: -1}
	stdinRead    = Thread{Tid: 8, Kind: Wait, Call: "read", On: "stdin", Timeout: -1}
	pipeRead     = Thread{Tid: 9, Kind: Wait, Call: "read", On: "a pipe", Timeout: -1}
)

func ts(t ...Thread) []Thread { return t }

// withTicks is th having used ticks of CPU.
func withTicks(th Thread, ticks uint64) Thread { th.Ticks = ticks; return th }

func TestDetector(t *testing.T) {
	goDeadlock := ts(futexForever, epollLong, sysmon60)
	tests := []struct {
		name    string
		limit   time.Duration
		samples []Sample
		want    int // index of the sample that finds the stall; -1 none
	}{
		{"go test binary deadlocked: alarm and sysmon timers are longer than the limit", 3 * time.Second,
			[]Sample{{At: at(0), Threads: goDeadlock}, {At: at(1), Threads: goDeadlock}, {At: at(2), Threads: goDeadlock}, {At: at(3), Threads: goDeadlock}, {At: at(4), Threads: goDeadlock}}, 3},
		{"the limit counts from the first blocked sample", 2 * time.Second,
			[]Sample{{At: at(0), Threads: ts(running)}, {At: at(1), Threads: goDeadlock}, {At: at(2), Threads: goDeadlock}, {At: at(3), Threads: goDeadlock}}, 3},
		{"off", 0, []Sample{{At: at(0), Threads: goDeadlock}, {At: at(100), Threads: goDeadlock}}, -1},
		{"a timer within the limit: a sleeper", 3 * time.Second,
			repeat(ts(futexForever, epollShort), 10), -1},
		{"a timeout equal to the limit is a timer", 60 * time.Second,
			repeat(ts(futexForever, sysmon60), 100), -1},
		{"nanosleep, however long, is a timer", time.Second, repeat(ts(futexForever, sleeping), 10), -1},
		{"a running thread", time.Second, repeat(ts(futexForever, running), 10), -1},
		{"an unknown syscall may progress", time.Second, repeat(ts(futexForever, other), 10), -1},
		{"zombies neither block nor progress", 2 * time.Second,
			repeat(ts(pipeRead, zombie), 4), 2},
		{"only zombies: nothing to call hung", time.Second, repeat(ts(zombie), 5), -1},
		{"no threads (the group is gone or unreadable)", time.Second, repeat(nil, 5), -1},
		{"CPU gained restarts the count", 2 * time.Second, []Sample{
			{At: at(0), Threads: ts(futexForever)},
			{At: at(1), Threads: ts(futexForever)},
			{At: at(2), Threads: ts(withTicks(futexForever, 1))},
			{At: at(3), Threads: ts(withTicks(futexForever, 1))},
			{At: at(4), Threads: ts(withTicks(futexForever, 1))},
		}, 4},
		{"output restarts the count", 2 * time.Second, []Sample{
			{At: at(0), Threads: ts(pipeRead)},
			{At: at(1), Threads: ts(pipeRead), Output: 5},
			{At: at(2), Threads: ts(pipeRead), Output: 10},
			{At: at(3), Threads: ts(pipeRead), Output: 10},
			{At: at(4), Threads: ts(pipeRead), Output: 10},
		}, 4},
		{"a thread born or gone is progress", 2 * time.Second, []Sample{
			{At: at(0), Threads: ts(futexForever)},
			{At: at(1), Threads: ts(futexForever)},
			{At: at(2), Threads: ts(futexForever, pipeRead)},
			{At: at(3), Threads: ts(pipeRead)},
			{At: at(4), Threads: ts(pipeRead)},
			{At: at(5), Threads: ts(pipeRead)},
		}, 5},
		{"a running sample restarts the count", 2 * time.Second, []Sample{
			{At: at(0), Threads: ts(pipeRead)},
			{At: at(1), Threads: ts(pipeRead)},
			{At: at(2), Threads: ts(running)},
			{At: at(3), Threads: ts(pipeRead)},
			{At: at(4), Threads: ts(pipeRead)},
			{At: at(5), Threads: ts(pipeRead)},
		}, 5},
		{"late samples: the quiet stretch is measured, not counted", 10 * time.Second,
			[]Sample{{At: at(0), Threads: goDeadlock}, {At: at(12), Threads: goDeadlock}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Detector{Limit: tt.limit}
			got := -1
			for i, s := range tt.samples {
				if f, ok := d.Observe(s); ok {
					got = i
					if f.For < tt.limit || len(f.Threads) == 0 {
						t.Errorf("finding %+v: For below the limit %v or no threads", f, tt.limit)
					}
					break
				}
			}
			if got != tt.want {
				t.Errorf("stall found at sample %d, want %d", got, tt.want)
			}
		})
	}
}

// repeat is n samples a second apart of the same threads.
func repeat(threads []Thread, n int) []Sample {
	out := make([]Sample, n)
	for i := range out {
		out[i] = Sample{At: at(i), Threads: threads}
	}
	return out
}

func TestFindingPhrase(t *testing.T) {
	tests := []struct {
		f    Finding
		want string
	}{
		{Finding{Threads: ts(futexForever, stdinRead)}, "waiting for input on stdin"},
		{Finding{Threads: ts(futexForever, futexForever, pipeRead)}, "every thread blocked: 2 in futex, 1 in read of a pipe"},
		{Finding{Threads: ts(Thread{Kind: Wait})}, "every thread blocked: 1 in a wait"},
	}
	for _, tt := range tests {
		if got := tt.f.Phrase(); got != tt.want {
			t.Errorf("Phrase() = %q, want %q", got, tt.want)
		}
	}
	if !(Finding{Threads: ts(stdinRead)}).Stdin() || (Finding{Threads: ts(pipeRead)}).Stdin() {
		t.Error("Stdin() wrong")
	}
	if s := (Finding{Threads: ts(pipeRead)}).Phrase(); strings.Contains(s, "stdin") {
		t.Errorf("a pipe is not stdin: %q", s)
	}
}
