package testutil_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil"
)

func TestProcessAlive(t *testing.T) {
	if !testutil.ProcessAlive(os.Getpid()) {
		t.Error("our own process reported dead")
	}
	// Pid max on Linux is at most 2^22; this one cannot exist.
	if testutil.ProcessAlive(1 << 30) {
		t.Error("impossible pid reported alive")
	}
}

func TestWaitGone(t *testing.T) {
	if testutil.WaitGone(os.Getpid(), 50*time.Millisecond) {
		t.Error("our own process reported gone")
	}
	if !testutil.WaitGone(1<<30, time.Second) {
		t.Error("impossible pid reported alive")
	}
	p, stdin, err := spawn.StartInteractive(context.Background(), spawn.Spec{Argv: []string{"sh", "-c", "read x"}})
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if testutil.WaitGone(p.Pid(), 50*time.Millisecond) {
		t.Fatal("running child reported gone")
	}
	done := make(chan bool)
	go func() { done <- testutil.WaitGone(p.Pid(), 30*time.Second) }()
	p.Stop(0)
	if !<-done {
		t.Error("stopped child not reported gone")
	}
}
