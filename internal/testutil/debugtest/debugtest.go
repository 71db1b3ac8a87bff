// Package debugtest holds what the debugger backends' tests share.
package debugtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
)

// LoggingBackend is a backend with logpoints.
type LoggingBackend interface {
	Continue(context.Context, debugger.ContinueOptions) (debugger.State, error)
	Logpoints() *debugger.LogBook
}

// RunUntilLogged continues b until its logpoints have logged a hit: the
// target is in its loop (loading the libraries under lldb takes a while,
// more on a busy machine). Each continue's wait must run out with the
// target running.
func RunUntilLogged(t testing.TB, b LoggingBackend) {
	t.Helper()
	for range 60 {
		st, err := b.Continue(context.Background(), debugger.ContinueOptions{Wait: 500 * time.Millisecond})
		if !errors.Is(err, debugger.ErrTimeout) || st.Status != debugger.StatusRunning {
			t.Fatalf("continue: %+v, %v; want the target running", st, err)
		}
		if news, _ := b.Logpoints().TakeNew(); news.New > 0 {
			return
		}
	}
	t.Fatal("no logpoint hit in 30 s of running")
}

// PausingBackend is a backend that pauses.
type PausingBackend interface {
	Pause(context.Context) (debugger.State, error)
}

// PauseAmidHits pauses b, which runs through its logpoints, and fails
// unless the answer is a stop for the pause.
func PauseAmidHits(t testing.TB, b PausingBackend, round int) {
	t.Helper()
	start := time.Now()
	st, err := b.Pause(context.Background())
	t.Logf("round %d: the pause took %s", round, time.Since(start))
	if err != nil || st.Status != debugger.StatusStopped || st.LastStop == nil || st.LastStop.Reason != debugger.StopPause {
		t.Fatalf("round %d: pause: %+v (stop %v), %v; want a pause", round, st, st.LastStop, err)
	}
}
