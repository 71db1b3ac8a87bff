package dump_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/sshhost"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// remoteClient is a triage client whose ssh configuration reaches h.
func remoteClient(t *testing.T, h *sshhost.Host) *mcptest.Client {
	return mcptest.Connect(t, &config.Config{SSH: config.SSH{Config: h.Config}})
}

// notLocal fails unless path is absent on this side: the engines can only
// have read the remote's copy.
func notLocal(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("%s exists locally: the test host's files must not", p)
		}
	}
}

// TestRemoteKernelDump opens the vmcore on the test host, whose crash and
// drgn run there over the host's one ssh connection.
func TestRemoteKernelDump(t *testing.T) {
	v := findVmcore(t)
	need(t, "crash", "crash")
	h := sshhost.Get(t)
	vmcore, vmlinux := h.Put(t, v.path, "vmcore"), h.Put(t, v.vmlinux, "vmlinux")
	notLocal(t, vmcore, vmlinux)
	c := remoteClient(t, h)
	args := map[string]any{"vmcore": vmcore, "vmlinux": vmlinux, "ssh_host": h.Name}
	open := c.Call("dump_open", args)
	if open.IsError || !strings.HasPrefix(open.FirstLine(), "OPENED dump-") || !strings.Contains(open.FirstLine(), "on "+h.Name) {
		t.Fatalf("dump_open:\n%s", open.Text)
	}
	var so wire.DumpSession
	open.Decode(t, &so)

	r := c.Call("dump_report", nil)
	var ro wire.DumpReport
	r.Decode(t, &ro)
	if !strings.HasPrefix(r.FirstLine(), "KERNEL PANIC: sysrq triggered crash") || ro.Task == nil || ro.Task.PID != 1 ||
		!strings.Contains(strings.Join(ro.Backtrace, "\n"), "sysrq_handle_crash") || len(ro.LogTail) == 0 {
		t.Fatalf("dump_report: %+v\n%s", ro, r.Text)
	}
	t.Run("the same report as locally", func(t *testing.T) {
		lc := mcptest.Connect(t, nil)
		if o := lc.Call("dump_open", map[string]any{"vmcore": v.path, "vmlinux": v.vmlinux}); o.IsError {
			t.Fatalf("local dump_open:\n%s", o.Text)
		}
		var lo wire.DumpReport
		lr := lc.Call("dump_report", nil)
		lr.Decode(t, &lo)
		lc.Call("dump_close", nil)
		same := func(a, b wire.DumpReport) bool {
			return a.Verdict == b.Verdict && a.Release == b.Release && a.Panic == b.Panic && a.Uptime == b.Uptime &&
				reflect.DeepEqual(a.Task, b.Task) && slices.Equal(a.Backtrace, b.Backtrace) && slices.Equal(a.LogTail, b.LogTail)
		}
		if !same(lo, ro) || lr.FirstLine() != r.FirstLine() {
			t.Errorf("remote report differs from the local one:\nremote: %+v\nlocal:  %+v", ro, lo)
		}
	})
	var first wire.DumpCommand
	t.Run("crash command and cache", func(t *testing.T) {
		r := c.Call("dump_command", map[string]any{"command": "crash: sys"})
		r.Decode(t, &first)
		if r.IsError || first.Engine != "crash" || !strings.Contains(r.Text, "sysrq triggered crash") {
			t.Fatalf("crash: sys:\n%s", r.Text)
		}
		var again wire.DumpCommand
		c.Call("dump_command", map[string]any{"command": "crash: sys"}).Decode(t, &again)
		if !again.Cached || again.OutputID != first.OutputID {
			t.Errorf("second sys not served from the cache: %+v", again)
		}
	})
	t.Run("drgn", func(t *testing.T) {
		need(t, "drgn", "python3-drgn")
		r := c.Call("dump_command", map[string]any{"command": "prog.crashed_thread().stack_trace()"})
		if r.IsError || !strings.Contains(r.Text, "sysrq_handle_crash") {
			t.Fatalf("drgn:\n%s", r.Text)
		}
	})
	t.Run("reopen under another path dedupes", func(t *testing.T) {
		link := h.Symlink(t, "vmcore", "vmcore-link")
		var o wire.DumpSession
		r := c.Call("dump_open", map[string]any{"vmcore": link, "vmlinux": vmlinux, "ssh_host": h.Name})
		r.Decode(t, &o)
		if !o.Reused || o.SessionID != so.SessionID {
			t.Errorf("reopen through a link: %+v\n%s", o, r.Text)
		}
		c.Call("dump_close", nil)
	})
	t.Run("connection killed mid-command, then recovery", func(t *testing.T) {
		need(t, "drgn", "python3-drgn")
		var res mcptest.Result
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			res = c.Call("dump_command", map[string]any{"command": "drgn: import time; open('" +
				filepath.Join(h.Root, "drgn-started") + "', 'w').close(); time.sleep(120)"})
		}()
		h.WaitFile(t, "drgn-started")
		syscall.Kill(-h.Master(t), syscall.SIGKILL)
		wg.Wait()
		if !res.IsError || !strings.Contains(res.Text, "ssh connection lost to "+h.Name) {
			t.Fatalf("command through a killed connection:\n%s", res.Text)
		}
		r := c.Call("dump_command", map[string]any{"command": "drgn: prog['init_task'].comm"})
		if r.IsError || !strings.Contains(r.Text, "swapper") {
			t.Errorf("after reconnecting:\n%s", r.Text)
		}
		// crash, idle when the connection dropped, is restarted at once.
		r = c.Call("dump_command", map[string]any{"command": "crash: sys", "force": true})
		var o wire.DumpCommand
		r.Decode(t, &o)
		if r.IsError || !strings.Contains(r.Text, "sysrq triggered crash") || !strings.Contains(strings.Join(o.Notes, " "), "ssh connection") {
			t.Errorf("crash after reconnecting: %+v\n%s", o, r.Text)
		}
	})
	t.Run("missing remote file", func(t *testing.T) {
		r := c.Call("dump_open", map[string]any{"vmcore": h.Root + "/nosuch", "vmlinux": vmlinux, "ssh_host": h.Name})
		if r.Outcome != "usage_error" || !strings.Contains(r.Text, "on "+h.Name) || !strings.Contains(r.Text, "No such file") {
			t.Errorf("missing remote vmcore: %s\n%s", r.Outcome, r.Text)
		}
	})
	if r := c.Call("dump_close", map[string]any{"session_id": so.SessionID}); !strings.HasPrefix(r.FirstLine(), "CLOSED") {
		t.Errorf("dump_close:\n%s", r.Text)
	}
}

// TestRemoteProcessCore reads a crasher's core with gdb on the test host.
func TestRemoteProcessCore(t *testing.T) {
	need(t, "gdb", "gdb")
	h := sshhost.Get(t)
	exe, core := makeCore(t, "segv")
	rexe, rcore := h.Put(t, exe, "segv"), h.Put(t, core, "segv.core")
	notLocal(t, rexe, rcore)
	c := remoteClient(t, h)
	open := c.Call("dump_open", map[string]any{"core": rcore, "program": rexe, "ssh_host": h.Name})
	if open.IsError || !strings.Contains(open.Text, "crashed: SIGSEGV in crash_here at segv.c:5") {
		t.Fatalf("dump_open, with its first look taken on the host:\n%s", open.Text)
	}
	rep := c.Call("dump_report", nil)
	if want := "CRASHED (SIGSEGV) in crash_here at segv.c:5, fault address 0x0"; rep.FirstLine() != want {
		t.Errorf("verdict %q, want %q\n%s", rep.FirstLine(), want, rep.Text)
	}
	r := c.Call("dump_command", map[string]any{"command": "bt"})
	var o wire.DumpCommand
	r.Decode(t, &o)
	if r.IsError || o.Engine != "gdb" || !strings.Contains(r.Text, "crash_here") {
		t.Errorf("bt:\n%s", r.Text)
	}
	c.Call("dump_close", nil)
}
