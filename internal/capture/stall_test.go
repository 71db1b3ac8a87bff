package capture

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/hang"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/stall"
	"github.com/triage-dev/triage/internal/testutil/hangers"
	"github.com/triage-dev/triage/internal/verdict"
)

// stallLimit is the tests' stall_s: short, so the suite stays fast.
const stallLimit = 2 * time.Second

// runWatched runs argv under a ten-minute limit with the stall watch on.
func runWatched(t *testing.T, timeout time.Duration, stdin io.Reader, argv ...string) (*Outcome, string) {
	t.Helper()
	var out lockedBuilder
	o, err := Run(context.Background(), Request{
		Spec:   spawn.Spec{Argv: argv, Timeout: timeout, Stdin: stdin},
		Output: &out, OutputID: "o-stall", Program: argv[0], Stall: stallLimit,
	})
	if err != nil {
		t.Fatal(err)
	}
	return o, out.String()
}

// wantHung checks a run ended HUNG, long before its limit, naming want.
func wantHung(t *testing.T, o *Outcome, out string, want ...string) {
	t.Helper()
	v, r := o.Verdict, o.Result
	if !r.Stalled || v.Status != verdict.StatusTimeout || !strings.HasPrefix(v.Line, "HUNG: no progress for 2s; ") {
		t.Fatalf("verdict %q (stalled %v), want HUNG\noutput:\n%s", v.Line, r.Stalled, out)
	}
	if st := o.Stalled; st == nil || st.Limit != stallLimit || len(st.Threads) == 0 || st.Head() != "HUNG: no progress for 2s" {
		t.Errorf("Outcome.Stalled = %+v", st)
	}
	// Generous: stall_s + a sample + the stacks, on a busy machine.
	if r.Duration > 2*time.Minute {
		t.Errorf("ended after %v", r.Duration)
	}
	for _, w := range want {
		if !strings.Contains(v.Line, w) {
			t.Errorf("verdict %q does not name %q\noutput:\n%s", v.Line, w, out)
		}
	}
	t.Logf("%s (after %v)", v.Line, r.Duration.Round(time.Millisecond))
	if strings.Contains(v.Line, "TIMED OUT") {
		t.Errorf("verdict %q reads as a timeout", v.Line)
	}
}

func TestStallABBAHung(t *testing.T) {
	t.Parallel()
	p := hangers.ABBA(t)
	o, out := runWatched(t, 10*time.Minute, nil, p.Bin)
	wantHung(t, o, out, abbaCycle(t, p))
	// The same stacks and evidence a timeout takes.
	if strings.Count(out, "\nThread ") != 3 || o.Hang == nil || !hasEvidence(o.Verdict, "stacks") {
		t.Errorf("stacks missing: hang %+v\n%s", o.Hang, out)
	}
}

func TestStallPipeReadHung(t *testing.T) {
	t.Parallel()
	p := hangers.PipeReader(t)
	o, out := runWatched(t, 10*time.Minute, nil, p.Bin)
	wantHung(t, o, out, fmt.Sprintf("piperead.c:%d", p.Line(t, "READ-PIPE")))
}

func TestStallGoChannelsHung(t *testing.T) {
	t.Parallel()
	p := hangers.GoChanDeadlock(t)
	o, out := runWatched(t, 10*time.Minute, nil, p.Bin)
	wantHung(t, o, out, fmt.Sprintf("main.go:%d", p.Line(t, "SEND-TASK")), "all goroutines are blocked: no goroutine is running or runnable")
	if !strings.Contains(out, "goroutine 1 ") {
		t.Errorf("the goroutine dump is not in the stored output")
	}
}

func TestStallStdinSaysSo(t *testing.T) {
	t.Parallel()
	r, w := io.Pipe()
	defer w.Close()
	o, out := runWatched(t, 10*time.Minute, r, "cat")
	wantHung(t, o, out, "waiting for input on stdin")
	for _, h := range o.Verdict.Hints {
		if strings.Contains(h.Text, "timeout_s") {
			t.Errorf("hint %q: a stall is not cured by more time", h.Text)
		}
	}
}

// TestStallNeverCallsBusyHung: a sleeper, a spinner, printers and a timed
// waiter run out their short time limit: TIMED OUT, never HUNG.
func TestStallNeverCallsBusyHung(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		argv           []string
		stall, timeout time.Duration
	}{
		{"sleeps in 1 s steps", []string{hangers.SleepSteps(t).Bin, "40"}, stallLimit, 6 * time.Second},
		{"spins", []string{hangers.Spin(t).Bin}, stallLimit, 6 * time.Second},
		{"prints every second", []string{hangers.Printer(t).Bin, "1"}, stallLimit, 6 * time.Second},
		// Its runtime waits 10 s on a timer: a timer within stall_s.
		{"prints every 10 s", []string{hangers.Printer(t).Bin, "10"}, 12 * time.Second, 25 * time.Second},
		{"waits 1 s at a time", []string{hangers.TimedWaiter(t).Bin, "1"}, stallLimit, 6 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out lockedBuilder
			o, err := Run(context.Background(), Request{Spec: spawn.Spec{Argv: tt.argv, Timeout: tt.timeout}, Output: &out, Stall: tt.stall})
			if err != nil {
				t.Fatal(err)
			}
			if want := "TIMED OUT after " + tt.timeout.String(); o.Result.Stalled || !strings.HasPrefix(o.Verdict.Line, want) {
				t.Errorf("verdict %q, want %s\noutput:\n%s", o.Verdict.Line, want, out.String())
			}
		})
	}
}

// TestStallOffByDefault: a Request without Stall waits for its limit.
func TestStallOffByDefault(t *testing.T) {
	t.Parallel()
	p := hangers.PipeReader(t)
	o, err := Run(context.Background(), Request{Spec: spawn.Spec{Argv: []string{p.Bin}, Timeout: 3 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if o.Result.Stalled || !strings.HasPrefix(o.Verdict.Line, "TIMED OUT after 3s") {
		t.Errorf("verdict %q, want a timeout", o.Verdict.Line)
	}
}

// BenchmarkStallTimeToHung measures how long a deadlock from its start
// takes to end HUNG under a ten-minute limit: stall_s (2 s) plus up to a
// sample, plus the stacks; "over-limit-s" is what the watch adds to
// stall_s (the bound: 3 s).
func BenchmarkStallTimeToHung(b *testing.B) {
	p := hangers.ABBA(b)
	var over time.Duration
	for b.Loop() {
		o, err := Run(context.Background(), Request{Spec: spawn.Spec{Argv: []string{p.Bin}, Timeout: 10 * time.Minute}, Stall: stallLimit})
		if err != nil {
			b.Fatal(err)
		}
		if !o.Result.Stalled {
			b.Fatalf("verdict %q, want HUNG", o.Verdict.Line)
		}
		over += o.Result.Duration - stallLimit
	}
	b.ReportMetric(over.Seconds()/float64(b.N), "over-limit-s")
}

// TestStallGoTestHung: `go test` of a test blocked on a channel, the go
// command waiting for its test binary whose -timeout alarm is ten minutes
// away, ends HUNG naming the test.
func TestStallGoTestHung(t *testing.T) {
	t.Parallel()
	p := hangers.GoChanTest(t)
	var out lockedBuilder
	o, err := Run(context.Background(), Request{
		Spec:   spawn.Spec{Argv: []string{"go", "test", "-count=1", "-run", "TestWaitsForever", "."}, Dir: p.Dir, Timeout: 10 * time.Minute},
		Output: &out, Program: "go", Stall: stallLimit,
	})
	if err != nil {
		t.Fatal(err)
	}
	wantHung(t, o, out.String(), fmt.Sprintf("TestWaitsForever, blocked in chan receive at hang_test.go:%d", p.Line(t, "RECV-FOREVER")))
}

func TestStalledVerdictLine(t *testing.T) {
	pipe := stall.Thread{Kind: stall.Wait, Call: "read", On: "a pipe", Timeout: -1}
	stdin := stall.Thread{Kind: stall.Wait, Call: "read", On: "stdin", Timeout: -1}
	stuck := &hang.Report{Stuck: []hang.Stuck{{Frame: coredump.Frame{Function: "main", File: "/src/x.c", Line: 9}, Reason: "read"}}}
	tests := []struct {
		st   Stalled
		rep  *hang.Report
		want string
	}{
		{Stalled{Limit: 30 * time.Second}, nil, "HUNG: no progress for 30s — process group killed"},
		{Stalled{Limit: 30 * time.Second, Finding: stall.Finding{Threads: []stall.Thread{pipe}}}, nil,
			"HUNG: no progress for 30s; every thread blocked: 1 in read of a pipe — process group killed"},
		{Stalled{Limit: 2 * time.Second, Finding: stall.Finding{Threads: []stall.Thread{pipe}}}, stuck,
			"HUNG: no progress for 2s; in main, blocked in read at x.c:9 — process group killed"},
		{Stalled{Limit: 2 * time.Second, Finding: stall.Finding{Threads: []stall.Thread{stdin}}}, stuck,
			"HUNG: no progress for 2s; waiting for input on stdin, in main, blocked in read at x.c:9 — process group killed"},
		{Stalled{Limit: 2 * time.Second}, &hang.Report{Notes: []string{"gdb: ptrace: Operation not permitted"}},
			"HUNG: no progress for 2s — process group killed; stacks not taken: gdb: ptrace: Operation not permitted"},
	}
	for _, tt := range tests {
		v := verdict.Verdict{Line: "TIMED OUT after 10m0s — process group killed",
			Hints: []verdict.Hint{{Text: "re-run under the debugger and pause it to see where it hangs, or raise timeout_s"}}}
		stalledVerdict(&v, &tt.st, tt.rep)
		if v.Line != tt.want {
			t.Errorf("line %q, want %q", v.Line, tt.want)
		}
		if !strings.HasSuffix(v.Hints[0].Text, "or raise stall_s (0 turns the stall watch off)") {
			t.Errorf("hint %q", v.Hints[0].Text)
		}
		if hasEvidence(v, "stall") != (len(tt.st.Threads) > 0) {
			t.Errorf("stall evidence %+v for %+v", v.Evidence, tt.st)
		}
	}
}
