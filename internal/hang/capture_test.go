package hang_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/hang"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/hangers"
)

// hung is a run that timed out once the program said "ready".
type hung struct {
	res    *spawn.Result
	report *hang.Report
	out    string
}

// runHung runs argv until it prints "ready", times it out there, and
// captures its stacks before the kill, as the runner does.
func runHung(t *testing.T, dir string, argv ...string) hung {
	t.Helper()
	ctx := testutil.NewExpireOn("ready")
	tap := hang.NewTap(0)
	var out bytes.Buffer
	var rep *hang.Report
	res, err := spawn.Run(ctx, spawn.Spec{
		Argv: argv, Dir: dir, Timeout: 10 * time.Minute, // the build of a test binary included
		Combined: io.MultiWriter(tap, ctx, &out),
		OnHang: func(hctx context.Context, h spawn.Hang) {
			tap.Arm()
			rep = hang.Capture(hctx, h.Pgid, hang.Options{})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut {
		t.Fatalf("the run did not time out: %+v\n%s", res, out.String())
	}
	if rep == nil {
		t.Fatalf("no capture before the kill\n%s", out.String())
	}
	rep.AddGoDump(tap.Bytes())
	return hung{res: res, report: rep, out: out.String()}
}

func (h hung) fatalf(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Fatalf("%s\nreport: processes %+v, notes %v, %d stacks, stuck %+v\noutput:\n%s\n%s",
		fmt.Sprintf(format, args...), h.report.Processes, h.report.Notes, len(h.report.Stacks), h.report.Stuck, lastBytes(h.out, 4000), h.report.Text)
}

func lastBytes(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func TestCaptureCDeadlockNamesBothLockSites(t *testing.T) {
	p := hangers.ABBA(t)
	h := runHung(t, p.Dir, p.Bin)
	stuck := h.report.Analyze("")
	want := []string{
		fmt.Sprintf("one blocked in pthread_mutex_lock at abba.c:%d", p.Line(t, "LOCK-B-IN-ONE")),
		fmt.Sprintf("two blocked in pthread_mutex_lock at abba.c:%d", p.Line(t, "LOCK-A-IN-TWO")),
	}
	phrase := hang.Phrase(stuck)
	if !strings.HasPrefix(phrase, "deadlocked: ") || !strings.Contains(phrase, want[0]) || !strings.Contains(phrase, want[1]) {
		h.fatalf(t, "phrase %q, want a deadlock naming %q", phrase, want)
	}
	if got := len(h.report.Stacks); got != 3 {
		h.fatalf(t, "%d thread stacks, want 3", got)
	}
	if !strings.Contains(h.report.Text, "pthread_mutex_lock") {
		h.fatalf(t, "the debugger's text is not kept for the store")
	}
}

func TestCaptureGoMutexDeadlock(t *testing.T) {
	p := hangers.GoMutexes(t, 0)
	h := runHung(t, p.Dir, p.Bin)
	phrase := hang.Phrase(h.report.Analyze(""))
	for _, w := range []string{
		fmt.Sprintf("main.main blocked in sync.Mutex.Lock at main.go:%d", p.Line(t, "LOCK-B-IN-MAIN")),
		fmt.Sprintf("main.worker blocked in sync.Mutex.Lock at main.go:%d", p.Line(t, "LOCK-A-IN-WORKER")),
	} {
		if !strings.HasPrefix(phrase, "deadlocked: ") || !strings.Contains(phrase, w) {
			h.fatalf(t, "phrase %q, want a deadlock naming %q", phrase, w)
		}
	}
	if h.report.Processes[0].Method != "SIGQUIT" {
		h.fatalf(t, "a Go program was not asked for its goroutines")
	}
}

func TestCaptureGoTestBlockedOnChannel(t *testing.T) {
	p := hangers.GoChanTest(t)
	h := runHung(t, p.Dir, "go", "test", "-json", "-count=1", ".")
	want := fmt.Sprintf("in TestWaitsForever, blocked in chan receive at hang_test.go:%d", p.Line(t, "RECV-FOREVER"))
	// The helper that printed "ready" may not have ended yet: only then
	// is every goroutine blocked.
	if got := hang.Phrase(h.report.Analyze("TestWaitsForever")); got != want && got != want+"; no other goroutine is left that could send" {
		h.fatalf(t, "phrase %q, want %q", got, want)
	}
	// Without the test's name, the goroutine in user code is found anyway
	// (the main goroutine is the testing package's).
	if got := hang.Phrase(h.report.Analyze("")); !strings.Contains(got, "blocked in chan receive at hang_test.go") {
		h.fatalf(t, "without the test name: %q", got)
	}
	// go test itself is not a leaf: only the test binary was signalled.
	if len(h.report.Processes) != 1 || !strings.HasSuffix(h.report.Processes[0].Comm, ".test") {
		h.fatalf(t, "processes %+v, want the test binary alone", h.report.Processes)
	}
}

func TestCaptureRustTestInALoop(t *testing.T) {
	p := hangers.RustLoopTest(t)
	h := runHung(t, p.Dir, "cargo", "test", "--offline")
	want := fmt.Sprintf("in tests::spins, running at lib.rs:%d", p.Line(t, "SPIN"))
	if got := hang.Phrase(h.report.Analyze("tests::spins")); got != want {
		h.fatalf(t, "phrase %q, want %q", got, want)
	}
	if got := hang.Phrase(h.report.Analyze("")); !strings.Contains(got, fmt.Sprintf("running at lib.rs:%d", p.Line(t, "SPIN"))) {
		h.fatalf(t, "without the test name: %q", got)
	}
}

// TestCaptureGroupGone: a group with nobody left says so, quickly.
func TestCaptureGroupGone(t *testing.T) {
	rep := hang.Capture(context.Background(), 1<<22+12345, hang.Options{})
	if len(rep.Stacks) != 0 || len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "no live process") {
		t.Fatalf("got %+v", rep)
	}
}
