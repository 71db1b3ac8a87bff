package remote_test

import (
	"bytes"
	"context"
	"errors"
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

// runJob runs job on the test host and returns its output and end, or
// the error of its start.
func runJob(t *testing.T, ctx context.Context, c *remote.Conn, job remote.Job) (string, remote.End, error) {
	t.Helper()
	var out lines
	job.Output = &out
	p, err := c.Start(ctx, job)
	if err != nil {
		return "", remote.End{}, err
	}
	end := p.Wait()
	return out.String(), end, nil
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
			out, end, err := runJob(t, ctx, c, tc.job)
			if err != nil || end.Exit == nil {
				t.Fatalf("%v %+v\n%s", err, end, out)
			}
			if e := end.Exit; out != tc.out || !tc.check(e) {
				t.Errorf("want %s and output %q; got %+v (%v), output %q", tc.expect, tc.out, e, e.Status, out)
			}
		})
	}
}

func TestJobThatCannotStartSaysWhy(t *testing.T) {
	h, c := testConn(t)
	for _, tc := range []struct {
		job  remote.Job
		kind spawn.StartErrorKind
		want string
	}{
		{remote.Job{Argv: []string{"no-such-program-anywhere"}}, spawn.KindNotFound, "not found in PATH"},
		{remote.Job{Argv: []string{h.Root + "/missing"}}, spawn.KindNotFound, "No such file"},
		{remote.Job{Argv: []string{"/"}}, spawn.KindIsDirectory, "is a directory"},
		{remote.Job{Argv: []string{"true"}, Dir: h.Root + "/nodir"}, spawn.KindBadDir, "working directory"},
		{remote.Job{Argv: []string{"true", "a\x00b"}}, spawn.KindOther, "NUL"},
	} {
		_, end, err := runJob(t, context.Background(), c, tc.job)
		var se *spawn.StartError
		if !errors.As(err, &se) || se.Kind != tc.kind || !strings.Contains(err.Error(), "on "+h.Name+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v (%+v); want a start error saying %q", tc.job.Argv, err, end, tc.want)
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
	done := make(chan remote.End)
	go func() {
		_, end, _ := runJob(t, ctx, c, remote.Job{Argv: []string{"sh", "-c", script}})
		done <- end
	}()
	local := h.Local(pidFile)
	for {
		if b, err := os.ReadFile(local); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			break
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case end := <-done:
			t.Fatalf("the job ended before it wrote its pids: %+v", end)
		}
	}
	b, _ := os.ReadFile(local)
	cancel()
	if end := <-done; !end.Cancelled || end.Exit == nil || end.Exit.Status.Signal() != syscall.SIGTERM {
		t.Errorf("a cancelled job: %+v, want Cancelled and its SIGTERM", end)
	}
	// The host is this machine in other namespaces: its pids are ours.
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		waitGone(t, pid)
	}
	os.Remove(filepath.Clean(local))
}

// waitGone waits until pid is no more (a zombie counts as gone: its
// parent reaps it).
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
// and its agent (the target: at most 20 ms over the local run,
// BenchmarkLocalTrue).
func BenchmarkJobTrue(b *testing.B) {
	h := sshhost.Get(b)
	pool := remote.NewPool(remote.Options{Config: h.Config})
	b.Cleanup(func() { pool.Close() })
	c, err := pool.Conn(context.Background(), h.Name)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		p, err := c.Start(context.Background(), remote.Job{Argv: []string{"true"}, CoreDumps: true})
		if err != nil {
			b.Fatal(err)
		}
		if end := p.Wait(); end.Exit == nil || !end.Exit.Status.Exited() {
			b.Fatalf("%+v", end)
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
