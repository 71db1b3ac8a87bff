package remote_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/testutil/sshhost"
)

// startJob starts job with its output collected.
func startJob(t *testing.T, c *remote.Conn, out *lines, job remote.Job) *remote.Process {
	t.Helper()
	job.Output = out
	p, err := c.Start(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitEnd waits for a job's end, failing after a minute.
func waitEnd(t *testing.T, p *remote.Process) remote.End {
	t.Helper()
	select {
	case <-p.Done():
		return p.Wait()
	case <-time.After(time.Minute):
		t.Fatal("the job did not end within a minute")
		return remote.End{}
	}
}

// count is a shell loop printing PREFIX0..PREFIX(n-1).
func count(prefix string, n int) string {
	return fmt.Sprintf(`i=0; while [ $i -lt %d ]; do echo %s$i; i=$((i+1)); done`, n, prefix)
}

func counted(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s%d\n", prefix, i)
	}
	return b.String()
}

// waitFor is a shell loop waiting for a file on the host.
func waitFor(h *sshhost.Host, name string) string {
	return fmt.Sprintf(`while [ ! -e %s/%s ]; do sleep 0.01; done`, h.Root, name)
}

// Two jobs on one agent run at once (each waits for the other half way),
// and each one's output is its own, whole and in order.
func TestAgentRunsJobsConcurrently(t *testing.T) {
	h, c := testConn(t)
	t.Cleanup(func() { h.Remove(t, "conc-a"); h.Remove(t, "conc-b") })
	var outA, outB lines
	a := startJob(t, c, &outA, remote.Job{Argv: []string{"sh", "-c", `echo "agent $PPID"; ` + count("a", 500) +
		"; touch " + h.Root + "/conc-a; " + waitFor(h, "conc-b") + "; " + count("A", 500)}})
	b := startJob(t, c, &outB, remote.Job{Argv: []string{"sh", "-c", `echo "agent $PPID"; ` + waitFor(h, "conc-a") + "; " + count("b", 500) +
		"; touch " + h.Root + "/conc-b; " + count("B", 500)}})
	ea, eb := waitEnd(t, a), waitEnd(t, b)
	if ea.Exit == nil || eb.Exit == nil || ea.Exit.Status.ExitStatus() != 0 || eb.Exit.Status.ExitStatus() != 0 {
		t.Fatalf("ends: %+v %+v", ea, eb)
	}
	agentA, restA, _ := strings.Cut(outA.String(), "\n")
	agentB, restB, _ := strings.Cut(outB.String(), "\n")
	if agentA != agentB || !strings.HasPrefix(agentA, "agent ") {
		t.Errorf("the jobs ran under different parents: %q, %q", agentA, agentB)
	}
	if restA != counted("a", 500)+counted("A", 500) {
		t.Errorf("job a's output is not its own, whole and in order:\n%.300s", restA)
	}
	if restB != counted("b", 500)+counted("B", 500) {
		t.Errorf("job b's output is not its own, whole and in order:\n%.300s", restB)
	}
}

// A job stopped while another runs ends alone: the other goes on and
// ends on its own.
func TestJobStoppedWhileAnotherContinues(t *testing.T) {
	h, c := testConn(t)
	t.Cleanup(func() { h.Remove(t, "stop-go"); h.Remove(t, "a-ready") })
	var outA, outB lines
	// a has printed its line before it is stopped.
	a := startJob(t, c, &outA, remote.Job{Argv: []string{"sh", "-c", "echo a; touch " + h.Root + "/a-ready; exec sleep 300"}})
	b := startJob(t, c, &outB, remote.Job{Argv: []string{"sh", "-c", "echo b1; " + waitFor(h, "stop-go") + "; echo b2"}})
	h.WaitFile(t, "a-ready")
	ea := a.Stop(time.Second)
	if !ea.Cancelled || ea.Exit == nil || ea.Exit.Status.Signal() != syscall.SIGTERM || outA.String() != "a\n" {
		t.Fatalf("the stopped job: %+v, output %q", ea, outA.String())
	}
	select {
	case <-b.Done():
		t.Fatalf("the other job ended with the stopped one: %+v", b.Wait())
	default:
	}
	if err := os.WriteFile(h.Local("stop-go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	eb := waitEnd(t, b)
	if eb.Cancelled || eb.Exit == nil || !eb.Exit.Status.Exited() || eb.Exit.Status.ExitStatus() != 0 || outB.String() != "b1\nb2\n" {
		t.Errorf("the job that went on: %+v, output %q", eb, outB.String())
	}
	h.WaitNothingLeft(t, 10*time.Second)
}

// The agent killed on the host mid-job: both its jobs end as lost (never
// a success), its watchdog ends their programs, and the next job starts a
// new agent.
func TestAgentDeathInterruptsItsJobs(t *testing.T) {
	h, c := testConn(t)
	t.Cleanup(func() { h.Remove(t, "death-1"); h.Remove(t, "death-2") })
	var jobs []*remote.Process
	for _, f := range []string{"death-1", "death-2"} {
		var out lines
		jobs = append(jobs, startJob(t, c, &out, remote.Job{Argv: []string{"sh", "-c", "echo $PPID > " + h.Root + "/" + f + ".new && mv " + h.Root + "/" + f + ".new " + h.Root + "/" + f + "; exec sleep 300"}}))
		h.WaitFile(t, f)
	}
	agent := readPid(t, h, "death-1")
	if err := syscall.Kill(agent, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i, p := range jobs {
		end := waitEnd(t, p)
		var lost *remote.LostError
		if end.Exit != nil || !errors.As(end.Lost, &lost) || lost.Conn || !strings.Contains(end.Lost.Error(), "job agent on "+h.Name+" ended") {
			t.Errorf("job %d after its agent died: %+v", i+1, end)
		}
	}
	h.WaitNothingLeft(t, 10*time.Second)
	var out lines
	p := startJob(t, c, &out, remote.Job{Argv: []string{"sh", "-c", "echo $PPID"}})
	if end := waitEnd(t, p); end.Exit == nil || end.Exit.Status.ExitStatus() != 0 || strings.TrimSpace(out.String()) == strconv.Itoa(agent) {
		t.Errorf("the next job: %+v, parent %q (the dead agent was %d)", end, out.String(), agent)
	}
}

// A program that kills its agent as it starts: whether or not the agent
// said the program runs, the job started there and its end is lost, not a
// start that failed.
func TestAgentDeathAsTheJobStarts(t *testing.T) {
	h, c := testConn(t)
	for i := range 5 {
		var out lines
		p := startJob(t, c, &out, remote.Job{Argv: []string{"sh", "-c", "kill -KILL $PPID; exec sleep 300"}})
		end := waitEnd(t, p)
		var lost *remote.LostError
		if end.Exit != nil || !errors.As(end.Lost, &lost) || lost.Conn {
			t.Fatalf("job %d that killed its agent: %+v", i, end)
		}
		h.WaitNothingLeft(t, 10*time.Second)
	}
}

// A start through a connection whose master was just killed: the job
// never reached the host, and the answer says the connection was lost
// (never a pipe's error), or, had the frame gone out first, the job's end
// is lost with it.
func TestStartThroughAKilledMaster(t *testing.T) {
	h, pool, c := testPool(t)
	ctx := context.Background()
	for i := range 3 {
		var out lines
		waitEnd(t, startJob(t, c, &out, remote.Job{Argv: []string{"true"}})) // the agent runs
		syscall.Kill(-c.Pid(), syscall.SIGKILL)
		p, err := c.Start(ctx, remote.Job{Argv: []string{"true"}, Output: &out})
		if err != nil {
			if !errors.Is(err, remote.ErrLost) || !strings.Contains(err.Error(), "nothing ran") {
				t.Fatalf("start %d through a killed master: %v", i, err)
			}
		} else if end := waitEnd(t, p); !errors.Is(end.Lost, remote.ErrLost) {
			t.Fatalf("job %d through a killed master: %+v", i, end)
		}
		c.Wait()
		var err2 error
		if c, err2 = pool.Conn(ctx, h.Name); err2 != nil {
			t.Fatal(err2)
		}
	}
}

func readPid(t *testing.T, h *sshhost.Host, name string) int {
	t.Helper()
	b, err := os.ReadFile(h.Local(name))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid in %s: %v", name, err)
	}
	return pid
}

// stuck is an Output that blocks until released: a sink that does not
// keep up.
type stuck struct {
	entered chan struct{}
	release chan struct{}
	n       int
}

func (s *stuck) Write(p []byte) (int, error) {
	if s.n == 0 {
		close(s.entered)
		<-s.release
	}
	s.n += len(p)
	return len(p), nil
}

// A job that floods a sink that does not keep up holds up neither the
// agent nor another job: the other's small output and end arrive, and
// the flood waits on the host, its program blocked on its full pipe.
func TestFloodDoesNotHoldUpOthers(t *testing.T) {
	_, c := testConn(t)
	sink := &stuck{entered: make(chan struct{}), release: make(chan struct{})}
	flood, err := c.Start(context.Background(), remote.Job{Argv: []string{"yes", "flood"}, Output: sink})
	if err != nil {
		t.Fatal(err)
	}
	<-sink.entered
	var out lines
	small := startJob(t, c, &out, remote.Job{Argv: []string{"echo", "small"}})
	if end := waitEnd(t, small); end.Exit == nil || end.Exit.Status.ExitStatus() != 0 || out.String() != "small\n" {
		t.Errorf("the small job beside a flood: %+v, output %q", end, out.String())
	}
	// The host is this machine in other namespaces: its pids are ours.
	wchan := "/proc/" + strconv.Itoa(flood.Pid()) + "/wchan"
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(wchan)
		if strings.Contains(string(b), "pipe_write") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the flooding program is not held on its pipe (wchan %q)", b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(sink.release)
	if end := flood.Stop(time.Second); !end.Cancelled || end.Exit == nil || sink.n == 0 {
		t.Errorf("the flood, stopped: %+v, %d bytes", end, sink.n)
	}
}
