package remote_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/sshhost"
)

// lines collects whole lines, as spawn's Combined sink gives them.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// runJob runs job on the test host and returns its output, the wrapper's
// report and ssh's own result.
func runJob(t *testing.T, ctx context.Context, c *remote.Conn, job remote.Job, timeout time.Duration) (string, *remote.Exit, *spawn.Result, error) {
	t.Helper()
	s, err := c.Start(job)
	if err != nil {
		t.Fatal(err)
	}
	var out lines
	res, err := spawn.Run(ctx, spawn.Spec{Argv: s.Argv, Stdin: s.Stdin, MergeStderr: true, Combined: s.Output(&out), Timeout: timeout})
	s.Release()
	if err != nil {
		t.Fatal(err)
	}
	exit, xerr := s.Exit()
	return out.String(), exit, res, xerr
}

// testConn is a connection to the test host.
func testConn(t *testing.T) (*sshhost.Host, *remote.Conn) {
	h, _, c := testPool(t)
	return h, c
}

// testPool is a pool, closed when the test ends, and its connection to
// the test host.
func testPool(t *testing.T) (*sshhost.Host, *remote.Pool, *remote.Conn) {
	h := sshhost.Get(t)
	pool := remote.NewPool(remote.Options{Config: h.Config})
	t.Cleanup(func() { pool.Close() })
	c, err := pool.Conn(context.Background(), h.Name)
	if err != nil {
		t.Fatal(err)
	}
	return h, pool, c
}

func TestJobReportsTheProgramsOwnStatus(t *testing.T) {
	_, c := testConn(t)
	ctx := context.Background()
	cases := []struct {
		name   string
		job    remote.Job
		out    string
		check  func(e *remote.Exit) bool
		expect string
	}{
		{"exit 3 with output and no final newline", remote.Job{Argv: []string{"sh", "-c", "echo out; echo err >&2; printf last; exit 3"}},
			"out\nerr\nlast\n", func(e *remote.Exit) bool { return e.Status.Exited() && e.Status.ExitStatus() == 3 }, "exit 3"},
		{"exit 255 is the program's, not ssh's", remote.Job{Argv: []string{"sh", "-c", "exit 255"}},
			"", func(e *remote.Exit) bool { return e.Status.Exited() && e.Status.ExitStatus() == 255 }, "exit 255"},
		{"a signal is a signal, with the core settings", remote.Job{Argv: []string{"sh", "-c", "kill -SEGV $$"}, CoreDumps: true},
			"", func(e *remote.Exit) bool {
				return e.Status.Signaled() && e.Status.Signal() == syscall.SIGSEGV && e.CorePattern != ""
			}, "SIGSEGV"},
		{"stdin, env, unset and dir", remote.Job{Argv: []string{"sh", "-c", `read x; echo "$x $GREETING ${HOME:-nohome} $(pwd)"`},
			Stdin: "hello\n", Env: map[string]string{"GREETING": "it's $(me)"}, Unset: []string{"HOME"}, Dir: "/tmp"},
			"hello it's $(me) nohome /tmp\n", func(e *remote.Exit) bool { return e.Status.Exited() && e.Status.ExitStatus() == 0 }, "exit 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, e, res, err := runJob(t, ctx, c, tc.job, 30*time.Second)
			if err != nil {
				t.Fatalf("%v (ssh: %s)\n%s", err, res, out)
			}
			if out != tc.out || !tc.check(e) {
				t.Errorf("want %s and output %q; got %+v (%v), output %q", tc.expect, tc.out, e, e.Status, out)
			}
		})
	}
}

func TestJobThatCannotStartSaysWhy(t *testing.T) {
	h, c := testConn(t)
	for _, tc := range []struct {
		job  remote.Job
		want string
	}{
		{remote.Job{Argv: []string{"no-such-program-anywhere"}}, "not found in PATH"},
		{remote.Job{Argv: []string{h.Root + "/missing"}}, "No such file"},
		{remote.Job{Argv: []string{"/"}}, "is a directory"},
		{remote.Job{Argv: []string{"true"}, Dir: h.Root + "/nodir"}, "working directory"},
	} {
		_, e, _, err := runJob(t, context.Background(), c, tc.job, 30*time.Second)
		if err != nil || !strings.Contains(e.ExecError, tc.want) {
			t.Errorf("%v: exit %+v, %v; want an exec error saying %q", tc.job.Argv, e, err, tc.want)
		}
	}
}

// A job whose local side is killed ends on the host too, with what it
// started.
func TestJobEndsWithItsLocalSide(t *testing.T) {
	h, c := testConn(t)
	pidFile := "job-pids"
	script := "sleep 300 & echo $$ $! > " + h.Root + "/" + pidFile + "; wait"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *spawn.Result)
	go func() {
		_, _, res, _ := runJob(t, ctx, c, remote.Job{Argv: []string{"sh", "-c", script}}, 0)
		done <- res
	}()
	local := h.Local(pidFile)
	for {
		if b, err := os.ReadFile(local); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			break
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case res := <-done:
			t.Fatalf("the job ended before it wrote its pids: %s", res)
		}
	}
	b, _ := os.ReadFile(local)
	cancel()
	<-done
	// The host is this machine in other namespaces: its pids are ours.
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		waitGone(t, pid)
	}
	os.Remove(filepath.Clean(local))
}

// waitGone waits until pid is no more (a zombie counts as gone: its
// parent, the remote wrapper, reaps it as it exits).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("process %d still runs on the host after its job was cancelled", pid)
}

// BenchmarkJobTrue is a remote run of true through an open connection
// (the target: at most 20 ms over the local run, BenchmarkLocalTrue).
func BenchmarkJobTrue(b *testing.B) {
	h := sshhost.Get(b)
	pool := remote.NewPool(remote.Options{Config: h.Config})
	b.Cleanup(func() { pool.Close() })
	c, err := pool.Conn(context.Background(), h.Name)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s, err := c.Start(remote.Job{Argv: []string{"true"}})
		if err != nil {
			b.Fatal(err)
		}
		res, err := spawn.Run(context.Background(), spawn.Spec{Argv: s.Argv, Stdin: s.Stdin, MergeStderr: true, Combined: s.Output(&lines{})})
		s.Release()
		if e, xerr := s.Exit(); err != nil || xerr != nil || !e.Status.Exited() {
			b.Fatalf("%v %v %s", err, xerr, res)
		}
	}
}

// BenchmarkLocalTrue is BenchmarkJobTrue's local twin.
func BenchmarkLocalTrue(b *testing.B) {
	for b.Loop() {
		if res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{"true"}}); err != nil || !res.Success() {
			b.Fatal(err, res)
		}
	}
}
