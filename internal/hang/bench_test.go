package hang_test

import (
	"context"
	"io"
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
	var stacks int
	for b.Loop() {
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
		tap.Arm()
		rep := hang.Capture(context.Background(), pr.Pid(), hang.Options{})
		if rep.Processes[0].Method == "SIGQUIT" {
			<-pr.Done() // a Go program's dump is complete once it has exited
		}
		b.StopTimer()
		pr.Stop(time.Second)
		b.StartTimer()
		rep.AddGoDump(tap.Bytes())
		rep.Analyze("")
		stacks = rep.TotalStacks
	}
	if stacks < wantStacks {
		b.Fatalf("%d stacks taken, want at least %d", stacks, wantStacks)
	}
	b.ReportMetric(float64(stacks), "stacks")
}

func BenchmarkCaptureNative50Threads(b *testing.B) {
	benchCapture(b, hangers.Sleepers(b, 50), 50)
}

func BenchmarkCaptureGo10000Goroutines(b *testing.B) {
	benchCapture(b, hangers.GoMutexes(b, 10000), 10000)
}
