package hang_test

import (
	"context"
	"io"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/hang"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/hangers"
)

// benchCapture measures what a capture adds to a timed-out call: from the
// decision to kill to the stacks parsed and analysed (target: at most 2 s
// for 50 threads or 10,000 goroutines).
func benchCapture(b *testing.B, p hangers.Program, wantStacks int) {
	benchCaptureThen(b, p, wantStacks, nil)
}

// benchCaptureThen is benchCapture with between run after each capture,
// untimed. It returns each capture's time.
func benchCaptureThen(b *testing.B, p hangers.Program, wantStacks int, between func()) (times []time.Duration) {
	var stacks int
	for b.Loop() {
		var took time.Duration
		b.StopTimer()
		ready := testutil.NewExpireOn("ready")
		tap := hang.NewTap(0)
		pr, err := spawn.Start(context.Background(), spawn.Spec{Argv: []string{p.Bin}, Dir: p.Dir, Combined: io.MultiWriter(tap, ready)})
		if err != nil {
			b.Fatal(err)
		}
		select {
		case <-ready.Done():
		case <-pr.Done():
			b.Fatal("the program ended before it was ready")
		}
		b.StartTimer()
		start := time.Now()
		tap.Arm()
		rep := hang.Capture(context.Background(), pr.Pid(), hang.Options{})
		if rep.Processes[0].Method == "SIGQUIT" {
			<-pr.Done() // a Go program's dump is complete once it has exited
		}
		took = time.Since(start)
		b.StopTimer()
		pr.Stop(time.Second)
		b.StartTimer()
		start = time.Now()
		rep.AddGoDump(tap.Bytes())
		rep.Analyze("")
		times = append(times, took+time.Since(start))
		stacks = rep.TotalStacks
		if between != nil {
			b.StopTimer()
			between()
			b.StartTimer()
		}
	}
	if stacks < wantStacks {
		b.Fatalf("%d stacks taken, want at least %d", stacks, wantStacks)
	}
	b.ReportMetric(float64(stacks), "stacks")
	return times
}

func BenchmarkCaptureNative50Threads(b *testing.B) {
	benchCapture(b, hangers.Sleepers(b, 50), 50)
}

// BenchmarkCaptureGo10000Goroutines also times, alternately, the program's
// own SIGQUIT dump into a pipe drained by a plain reader: most of a Go
// capture is the runtime printing its goroutines, a write per field, so
// the capture is reported beside what the program alone takes.
func BenchmarkCaptureGo10000Goroutines(b *testing.B) {
	p := hangers.GoMutexes(b, 10000)
	var dumps []time.Duration
	captures := benchCaptureThen(b, p, 10000, func() { dumps = append(dumps, ownDump(b, p)) })
	c, d := testutil.Median(captures), testutil.Median(dumps)
	b.ReportMetric(c.Seconds(), "capture-s")
	b.ReportMetric(d.Seconds(), "dump-s")
	b.ReportMetric(c.Seconds()/d.Seconds(), "ratio")
}

// ownDump is the time from SIGQUIT to the exit of p, its output read from a
// pipe and discarded.
func ownDump(b *testing.B, p hangers.Program) time.Duration {
	cmd := exec.Command(p.Bin)
	cmd.Dir = p.Dir
	ready := testutil.NewExpireOn("ready")
	cmd.Stdout, cmd.Stderr = ready, ready
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-ready.Done():
	case err := <-exited:
		b.Fatalf("the program ended before it was ready: %v", err)
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGQUIT)
	<-exited
	return time.Since(start)
}
