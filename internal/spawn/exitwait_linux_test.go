package spawn_test

import (
	"context"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/triage-dev/triage/internal/spawn"
)

// AwaitExit of a zombie answers at once, every time: its pidfd is readable
// from the open on, and the poller forgets a readiness it saw before the
// wait began (before the fix, 10 to 26 waits of 4,000 ran to the deadline).
func TestAwaitExitOfAZombie(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	// Wait for the exit without reaping: the child stays a zombie.
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var missed atomic.Int32
	for range 8 {
		wg.Go(func() {
			for range 500 {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				if gone, err := spawn.AwaitExit(ctx, cmd.Process.Pid); !gone || err != nil {
					missed.Add(1)
				}
				cancel()
			}
		})
	}
	wg.Wait()
	if n := missed.Load(); n > 0 {
		t.Fatalf("%d waits of 4,000 on a zombie did not see its exit", n)
	}
}
