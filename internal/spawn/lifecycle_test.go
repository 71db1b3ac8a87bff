package spawn_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// TestTimeoutKillsStubbornGroup: the leader and its grandchild ignore
// SIGTERM, the grandchild holds stdout; the timeout must SIGKILL both.
func TestTimeoutKillsStubbornGroup(t *testing.T) {
	w := newWatcher("grandchild ")
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv:    []string{crashers.Build(t, "sigtermfork"), "hang"},
		Stdout:  w,
		Timeout: 300 * time.Millisecond,
		Grace:   200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Cancelled || res.SignalName != "SIGKILL" {
		t.Errorf("got %+v", res)
	}
	if res.OOMKilled {
		t.Error("our own SIGKILL reported as an OOM kill")
	}
	requireGone(t, grandchildPid(t, w.String()))
}

func TestTimeoutPoliteChild(t *testing.T) {
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv: []string{crashers.Build(t, "sleeper"), "600"}, Timeout: 100 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.SignalName != "SIGTERM" || res.Success() {
		t.Errorf("got %+v", res)
	}
}

// TestLeaderExitsGrandchildHoldsStdout: the leader exits at once, but a
// grandchild keeps the pipe open forever. No hang, no orphan.
func TestLeaderExitsGrandchildHoldsStdout(t *testing.T) {
	w := newWatcher("grandchild ")
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv:      []string{crashers.Build(t, "sigtermfork"), "exit"},
		Stdout:    w,
		WaitDelay: 100 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Success() || !res.OrphansKilled {
		t.Errorf("got %+v", res)
	}
	requireGone(t, grandchildPid(t, w.String()))
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	w := newWatcher("grandchild ")
	p, err := spawn.Start(ctx, spawn.Spec{
		Argv:   []string{crashers.Build(t, "sigtermfork"), "hang"},
		Stdout: w,
		Grace:  100 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	w.wait(t)
	cancel()
	res, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled || res.TimedOut || res.SignalName != "SIGKILL" {
		t.Errorf("got %+v", res)
	}
	requireGone(t, grandchildPid(t, w.String()))
}

func TestContextDeadlineIsATimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	res, err := spawn.Run(ctx, spawn.Spec{Argv: []string{crashers.Build(t, "sleeper"), "600"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Cancelled {
		t.Errorf("got %+v", res)
	}
}

// TestTimeoutStoppedChild: a child stopped by SIGSTOP still ends politely
// on timeout (SIGTERM is followed by SIGCONT), well before the grace period.
func TestTimeoutStoppedChild(t *testing.T) {
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv:    []string{"sh", "-c", "kill -STOP $$; sleep 600"},
		Timeout: 100 * time.Millisecond,
		Grace:   time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.SignalName != "SIGTERM" {
		t.Errorf("got %+v", res)
	}
}

func TestStop(t *testing.T) {
	w := newWatcher("ready")
	p, err := spawn.Start(context.Background(), spawn.Spec{Argv: []string{crashers.Build(t, "sleeper"), "600"}, Stdout: w})
	if err != nil {
		t.Fatal(err)
	}
	w.wait(t)
	res, err := p.Stop(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled || res.SignalName != "SIGTERM" {
		t.Errorf("got %+v", res)
	}
	// Stopping a finished process returns the same result.
	again, _ := p.Stop(0)
	if again != res {
		t.Errorf("second Stop gave %+v", again)
	}
}

func TestCoreDumps(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_CORE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Max == 0 {
		t.Skip("hard RLIMIT_CORE is 0 here: core dumps cannot be enabled")
	}
	// Ours is restored afterwards, whatever it was.
	defer func() {
		var after syscall.Rlimit
		syscall.Getrlimit(syscall.RLIMIT_CORE, &after)
		if after != lim {
			t.Errorf("our RLIMIT_CORE changed from %+v to %+v", lim, after)
		}
	}()
	for _, enable := range []bool{true, false} {
		var out strings.Builder
		res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{"sh", "-c", "ulimit -c"}, Stdout: &out, CoreDumps: enable})
		if err != nil || !res.Success() {
			t.Fatalf("%v %v", res, err)
		}
		want := "unlimited"
		if lim.Max != ^uint64(0) { // RLIM_INFINITY
			want = "" // shells print blocks; just require a change below
		}
		got := strings.TrimSpace(out.String())
		switch {
		case enable && want != "" && got != want:
			t.Errorf("with CoreDumps: ulimit -c = %q, want %q", got, want)
		case !enable && lim.Cur == 0 && got != "0":
			t.Errorf("without CoreDumps: ulimit -c = %q, want our own 0", got)
		}
	}

	core, err := os.ReadFile("/proc/sys/kernel/core_pattern")
	if err != nil || strings.HasPrefix(string(core), "|") {
		t.Logf("core_pattern %q pipes cores elsewhere; checking only the wait status", core)
	}
	dir := t.TempDir()
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{crashers.Build(t, "segv")}, Dir: dir, CoreDumps: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.CoreDumped || res.SignalName != "SIGSEGV" {
		t.Errorf("got %+v", res)
	}
	if strings.TrimSpace(string(core)) == "core" {
		if m, _ := filepath.Glob(filepath.Join(dir, "core*")); len(m) == 0 {
			t.Errorf("core_pattern is %q but no core file in %s", core, dir)
		}
	}
}

// countingDiscard counts bytes without keeping them.
type countingDiscard struct{ n int64 }

func (c *countingDiscard) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// TestGigabyteBoundedMemory streams 1 GiB through both the stdout and the
// combined sink and checks we allocated a tiny fraction of it.
func TestGigabyteBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 1 GiB")
	}
	const size = 1 << 30
	path := crashers.Build(t, "bigoutput")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, comb := &countingDiscard{}, &countingDiscard{}
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv: []string{path, "1073741824"}, Stdout: out, Combined: comb, Timeout: 5 * time.Minute,
	})
	runtime.ReadMemStats(&after)
	if err != nil || !res.Success() {
		t.Fatalf("%v %v", res, err)
	}
	// 2^30 is not a multiple of the 100-byte line, so Combined terminates
	// the last fragment with a newline.
	if out.n != size || comb.n != size+1 {
		t.Errorf("stdout sink got %d bytes, combined %d, want %d and %d", out.n, comb.n, size, size+1)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("allocated %d bytes to stream 1 GiB", alloc)
	}
}

func BenchmarkCapture(b *testing.B) {
	const size = 256 << 20
	path := crashers.Build(b, "bigoutput")
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		res, err := spawn.Run(context.Background(), spawn.Spec{
			Argv: []string{path, "268435456"}, Stdout: io.Discard, Combined: io.Discard,
		})
		if err != nil || !res.Success() {
			b.Fatalf("%v %v", res, err)
		}
	}
}

// BenchmarkStartToExit runs /bin/true as a build or test step is run (its
// own process group, core dumps on, the outputs merged), beside os/exec
// running it plainly: what a step's supervision adds to each child.
func BenchmarkStartToExit(b *testing.B) {
	b.Run("spawn", func(b *testing.B) {
		for b.Loop() {
			res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{"/bin/true"}, Combined: io.Discard, CoreDumps: true, MergeStderr: true})
			if err != nil || !res.Success() {
				b.Fatalf("%v %v", res, err)
			}
		}
	})
	b.Run("os-exec", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("/bin/true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// OnExit is called once the leader has exited, before the output its
// group still writes is read and Wait returns: what the leader wrote
// before it exited is there to read.
func TestOnExitComesAsTheLeaderExits(t *testing.T) {
	dir := t.TempDir()
	fifo, written := filepath.Join(dir, "fifo"), filepath.Join(dir, "written")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	exited := make(chan string, 2)
	w := newWatcher("late")
	// The leader writes a file and exits; its child holds stdout until the
	// test writes to the fifo.
	script := `printf kept > "$1"; (cat "$2"; echo late) & exit 0`
	p, err := spawn.Start(context.Background(), spawn.Spec{
		Argv:   []string{"sh", "-c", script, "sh", written, fifo},
		Stdout: w,
		OnExit: func() {
			data, _ := os.ReadFile(written)
			exited <- string(data)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	go func() { p.Wait(); close(waited) }()
	// The child's cat ends on the fifo's first line. After a failure the
	// cat may not read yet (ENXIO): the group is killed after WaitDelay.
	release := func(flag int) {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|flag, 0); err == nil {
			f.WriteString("go on\n")
			f.Close()
		}
	}
	t.Cleanup(func() { release(syscall.O_NONBLOCK); <-waited })
	select {
	case got := <-exited:
		if got != "kept" {
			t.Errorf("OnExit read %q from the leader's file, want %q", got, "kept")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OnExit was not called as the leader exited")
	}
	select {
	case <-waited:
		t.Fatal("Wait returned while the leader's child still held the output")
	default:
	}
	release(0)
	<-waited
	w.wait(t)
	if len(exited) != 0 {
		t.Error("OnExit was called more than once")
	}
}

// A descendant that left the group (setsid, as Criterion's runner does) is
// ended with it: a cancelled run leaves nothing behind.
func TestCancelEndsEscapedDescendants(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("escaped descendants are found through /proc (Linux)")
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := newWatcher("grandchild ")
	p, err := spawn.Start(ctx, spawn.Spec{
		Argv:   []string{"sh", "-c", `setsid sh -c 'echo grandchild $$; exec sleep 1000' & wait`},
		Stdout: w,
		Grace:  100 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	w.wait(t)
	pid := grandchildPid(t, w.String())
	if spawn.Escaped(p.Pid(), p.Pid()) == nil {
		t.Fatalf("pid %d is not seen as escaped from group %d", pid, p.Pid())
	}
	cancel()
	res, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled {
		t.Errorf("got %+v", res)
	}
	requireGone(t, pid)
}
