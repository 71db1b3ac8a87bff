package spawn_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// AwaitExit waits for a process it did not start as a child of its own
// (here one it did, seen only by pid): not yet exited while it sleeps,
// exited once stopped, and at once for a pid that is gone.
func TestAwaitExit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pidfds are Linux's")
	}
	p, err := spawn.Start(context.Background(), spawn.Spec{Argv: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if gone, err := spawn.AwaitExit(short, p.Pid()); gone || err != nil {
		t.Fatalf("a sleeping process: AwaitExit = %v, %v; want false, nil at the deadline", gone, err)
	}
	go p.Stop(time.Second)
	if gone, err := spawn.AwaitExit(context.Background(), p.Pid()); !gone || err != nil {
		t.Fatalf("a stopped process: AwaitExit = %v, %v; want true", gone, err)
	}
	<-p.Done()
	if gone, err := spawn.AwaitExit(context.Background(), p.Pid()); !gone || err != nil {
		t.Fatalf("a reaped process: AwaitExit = %v, %v; want true", gone, err)
	}
}
