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
