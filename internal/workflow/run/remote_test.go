package run_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/sshhost"
	"github.com/triage-dev/triage/internal/workflow/run"
)

func remoteClient(t *testing.T, h *sshhost.Host) *mcptest.Client {
	return mcptest.Connect(t, &config.Config{SSH: config.SSH{Config: h.Config}})
}

// A program run on the test host: its verdict is its own end there, and
// its core is found and read there.
func TestRemoteRun(t *testing.T) {
	h := sshhost.Get(t)
	segv := h.Put(t, crashers.Build(t, "segv"), "segv")
	exitwith := h.Put(t, crashers.Build(t, "exitwith"), "exitwith")
	c := remoteClient(t, h)

	t.Run("crash with the remote core's backtrace", func(t *testing.T) {
		r := c.Call("run", map[string]any{"program": segv, "cwd": h.Root, "ssh_host": h.Name})
		var out run.RunOutput
		r.Decode(t, &out)
		if !strings.HasPrefix(r.FirstLine(), "CRASHED (SIGSEGV) in crash_here at segv.c:5") || r.Outcome != "failed" {
			t.Fatalf("verdict %q (%s)\n%s", r.FirstLine(), r.Outcome, r.Text)
		}
		if !strings.HasPrefix(out.Core, h.Root+"/core") || len(out.Backtrace) == 0 || out.Backtrace[0].Function != "crash_here" {
			t.Fatalf("core %q backtrace %+v", out.Core, out.Backtrace)
		}
		if !strings.Contains(r.Text, `"ssh_host":"`+h.Name+`"`) || !strings.Contains(r.Text, "dump_open") {
			t.Errorf("the dump_open hint does not name the host:\n%s", r.Text)
		}
		h.Remove(t, strings.TrimPrefix(out.Core, h.Root+"/"))
	})
	t.Run("exit 255 is the program's", func(t *testing.T) {
		r := c.Call("run", map[string]any{"program": exitwith, "args": []string{"255", "bad thing"}, "ssh_host": h.Name})
		var out run.RunOutput
		r.Decode(t, &out)
		if out.Verdict.ExitCode != 255 || out.Verdict.Status != "failure" || !strings.Contains(r.Text, "bad thing") {
			t.Errorf("exit 255: %+v\n%s", out.Verdict, r.Text)
		}
	})
	t.Run("a program the host lacks is the caller's mistake", func(t *testing.T) {
		r := c.Call("run", map[string]any{"program": h.Root + "/nosuch", "ssh_host": h.Name})
		if r.Outcome != "usage_error" || !strings.Contains(r.Text, "on "+h.Name) || !strings.Contains(r.Text, "No such file") {
			t.Errorf("missing program: %s\n%s", r.Outcome, r.Text)
		}
	})
	t.Run("from the session defaults", func(t *testing.T) {
		c.Call("session_set_defaults", map[string]any{"ssh_host": h.Name})
		defer c.Call("session_clear_defaults", map[string]any{"keys": []string{"ssh_host"}})
		r := c.Call("run", map[string]any{"program": "sh", "args": []string{"-c", "echo $SSH_CONNECTION"}})
		if r.IsError || !strings.Contains(r.Text, h.Addr) {
			t.Errorf("run with ssh_host from the defaults did not run on the host:\n%s", r.Text)
		}
	})
	t.Run("connection killed mid-run, then recovery", func(t *testing.T) {
		started := "run-started"
		t.Cleanup(func() { h.Remove(t, started) }) // a repeat waits for its own
		var res mcptest.Result
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			res = c.Call("run", map[string]any{"program": "sh", "args": []string{"-c", "touch " + h.Root + "/" + started + "; exec sleep 120"}, "ssh_host": h.Name})
		}()
		h.WaitFile(t, started)
		syscall.Kill(-h.Master(t), syscall.SIGKILL)
		wg.Wait()
		if !strings.HasPrefix(res.FirstLine(), "INTERRUPTED") || !strings.Contains(res.Text, "ssh connection to "+h.Name+" was lost") {
			t.Fatalf("a run through a killed connection:\n%s", res.Text)
		}
		r := c.Call("run", map[string]any{"program": "true", "ssh_host": h.Name})
		if r.IsError || !strings.HasPrefix(r.FirstLine(), "SUCCEEDED") {
			t.Errorf("after reconnecting:\n%s", r.Text)
		}
	})
	t.Run("the host's job agent killed mid-run: both runs interrupted, then recovery", func(t *testing.T) {
		t.Cleanup(func() { h.Remove(t, "agent-0"); h.Remove(t, "agent-1") })
		res := make([]mcptest.Result, 2)
		var wg sync.WaitGroup
		for i := range res {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Written whole, then renamed: WaitFile sees the file
				// only once it holds the pid.
				f := fmt.Sprintf("%s/agent-%d", h.Root, i)
				res[i] = c.Call("run", map[string]any{"program": "sh", "args": []string{"-c", "echo $PPID > " + f + ".new && mv " + f + ".new " + f + "; exec sleep 120"}, "ssh_host": h.Name})
			}()
		}
		h.WaitFile(t, "agent-0")
		h.WaitFile(t, "agent-1")
		b, _ := os.ReadFile(h.Local("agent-0"))
		agent, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("the agent's pid: %q", b)
		}
		syscall.Kill(agent, syscall.SIGKILL)
		wg.Wait()
		for i, r := range res {
			if !strings.HasPrefix(r.FirstLine(), "INTERRUPTED") || !strings.Contains(r.Text, "job agent on "+h.Name+" ended") {
				t.Errorf("run %d through a killed agent:\n%s", i, r.Text)
			}
		}
		h.WaitNothingLeft(t, 10*time.Second)
		r := c.Call("run", map[string]any{"program": "true", "ssh_host": h.Name})
		if r.IsError || !strings.HasPrefix(r.FirstLine(), "SUCCEEDED") {
			t.Errorf("after the agent died:\n%s", r.Text)
		}
	})
	t.Run("a time limit ends it there too", func(t *testing.T) {
		r := c.Call("run", map[string]any{"program": "sh", "args": []string{"-c", "sleep 300 & sleep 300"}, "timeout_s": 1, "ssh_host": h.Name})
		var out run.RunOutput
		r.Decode(t, &out)
		if !strings.HasPrefix(r.FirstLine(), "TIMED OUT") || !out.TimedOut {
			t.Errorf("remote run over its limit:\n%s", r.Text)
		}
		h.WaitNothingLeft(t, 10*time.Second)
	})
	t.Run("background process on the host", func(t *testing.T) {
		sleeper := h.Put(t, crashers.Build(t, "sleeper"), "sleeper")
		r := c.Call("process_start", map[string]any{"program": sleeper, "args": []string{"600"}, "ssh_host": h.Name})
		var p run.ProcessInfo
		r.Decode(t, &p)
		if r.IsError || p.SSHHost != h.Name || !strings.Contains(r.FirstLine(), "on "+h.Name) {
			t.Fatalf("process_start:\n%s", r.Text)
		}
		stop := c.Call("process_stop", map[string]any{"id": p.ID})
		if !strings.HasPrefix(stop.FirstLine(), "INTERRUPTED") {
			t.Errorf("process_stop:\n%s", stop.Text)
		}
		h.WaitNothingLeft(t, 10*time.Second)
	})
}
