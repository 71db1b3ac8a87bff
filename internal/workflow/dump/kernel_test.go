package dump_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/dump"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// vmcore is the output of scripts/make-vmcore.sh.
type vmcore struct{ path, kdump, flat, vmlinux string }

// findVmcore reads TRIAGE_VMCORE/TRIAGE_VMLINUX, else the cache's
// vmcore.env. Missing, it skips the test, except in CI, which generates the
// vmcore first: there a missing vmcore fails.
func findVmcore(t testing.TB) vmcore {
	t.Helper()
	v := vmcore{path: os.Getenv("TRIAGE_VMCORE"), vmlinux: os.Getenv("TRIAGE_VMLINUX"),
		kdump: os.Getenv("TRIAGE_VMCORE_KDUMP"), flat: os.Getenv("TRIAGE_VMCORE_FLAT")}
	if v.path == "" {
		root := os.Getenv("TRIAGE_CACHE")
		if root == "" {
			home, _ := os.UserHomeDir()
			root = filepath.Join(home, ".cache", "triage")
		}
		if f, err := os.Open(filepath.Join(root, "vmcore", "vmcore.env")); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				k, val, _ := strings.Cut(sc.Text(), "=")
				switch k {
				case "VMCORE":
					v.path = val
				case "VMCORE_KDUMP":
					v.kdump = val
				case "VMCORE_FLAT":
					v.flat = val
				case "VMLINUX":
					v.vmlinux = val
				}
			}
			f.Close()
		}
	}
	missing := v.path == "" || v.vmlinux == ""
	if !missing {
		for _, p := range []string{v.path, v.vmlinux} {
			if _, err := os.Stat(p); err != nil {
				missing = true
			}
		}
	}
	if missing {
		msg := "no kernel vmcore: run scripts/make-vmcore.sh (needs qemu-system-x86, busybox-static, cpio, crash, python3-drgn) or set TRIAGE_VMCORE and TRIAGE_VMLINUX"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return v
}

// TestKernelDump shares one session (crash starts in ~10 s) across subtests.
func TestKernelDump(t *testing.T) {
	v := findVmcore(t)
	need(t, "crash", "crash")
	c := mcptest.Connect(t, nil)
	open := c.Call("dump_open", map[string]any{"vmcore": v.path, "vmlinux": v.vmlinux})
	if open.IsError || !strings.HasPrefix(open.FirstLine(), "OPENED dump-") || !strings.Contains(open.FirstLine(), "kernel 6.") {
		t.Fatalf("dump_open:\n%s", open.Text)
	}
	var so wire.DumpSession
	open.Decode(t, &so)
	cmd := func(t *testing.T, args map[string]any) (mcptest.Result, wire.DumpCommand) {
		t.Helper()
		r := c.Call("dump_command", args)
		var o wire.DumpCommand
		if !r.IsError {
			r.Decode(t, &o)
		}
		return r, o
	}

	t.Run("report", func(t *testing.T) {
		r := c.Call("dump_report", nil)
		if r.IsError || !strings.HasPrefix(r.FirstLine(), "KERNEL PANIC: sysrq triggered crash") {
			t.Fatalf("dump_report:\n%s", r.Text)
		}
		var o wire.DumpReport
		r.Decode(t, &o)
		if o.Task == nil || o.Task.PID != 1 || !strings.Contains(strings.Join(o.Backtrace, "\n"), "sysrq_handle_crash") ||
			o.Release == "" || o.Uptime == "" || o.Tainted == "" || len(o.LogTail) == 0 {
			t.Errorf("report: %+v\n%s", o, r.Text)
		}
		if !strings.Contains(r.Text, "sysrq_handle_crash") || !strings.Contains(r.Text, "end Kernel panic") {
			t.Errorf("report text lacks the backtrace or log tail:\n%s", r.Text)
		}
		// The next steps it names run as suggested.
		if len(o.Next) == 0 {
			t.Errorf("no next steps:\n%s", r.Text)
		}
		for _, h := range o.Next {
			if n := c.Call(h.Tool, h.Args); n.IsError || n.Outcome != "ok" {
				t.Errorf("next step %s %v: %s", h.Tool, h.Args, n.Text)
			}
		}
	})
	t.Run("context switch changes the cache key", func(t *testing.T) {
		r1, bt1 := cmd(t, map[string]any{"command": "crash:bt"})
		if r1.IsError || !strings.Contains(r1.Text, "sysrq_handle_crash") {
			t.Fatalf("crash:bt:\n%s", r1.Text)
		}
		r, o := cmd(t, map[string]any{"command": "set 0"})
		if r.IsError || o.Context.PID != 0 || !o.Context.Set || !strings.Contains(r.Text, "context: task=") {
			t.Fatalf("set 0: %+v\n%s", o, r.Text)
		}
		r2, bt2 := cmd(t, map[string]any{"command": "bt"})
		if bt2.Cached || bt2.OutputID == bt1.OutputID || !strings.Contains(r2.Text, `"swapper/0"`) {
			t.Errorf("bt under swapper: %+v\n%s", bt2, r2.Text)
		}
		cmd(t, map[string]any{"command": "set -p"})
		_, bt3 := cmd(t, map[string]any{"command": "bt"})
		if !bt3.Cached || bt3.OutputID != bt1.OutputID {
			t.Errorf("bt back on the panic task not served from the cache: %+v (first %s)", bt3, bt1.OutputID)
		}
	})
	t.Run("drgn", func(t *testing.T) {
		need(t, "drgn", "python3-drgn")
		r, o := cmd(t, map[string]any{"command": "prog.crashed_thread().stack_trace()"})
		if r.IsError || o.Engine != "drgn" || o.Route != "python" || !strings.Contains(r.Text, "sysrq_handle_crash") {
			t.Errorf("drgn stack trace: %+v\n%s", o, r.Text)
		}
		// Multi-line code, and the namespace persists.
		r, _ = cmd(t, map[string]any{"command": "drgn: names = []\nfor f in prog.crashed_thread().stack_trace():\n    names.append(f.name)"})
		if r.IsError {
			t.Fatal(r.Text)
		}
		if r, _ = cmd(t, map[string]any{"command": "drgn: print('panic' in names)"}); !strings.Contains(r.Text, "True") {
			t.Errorf("namespace did not persist:\n%s", r.Text)
		}
		if r, o = cmd(t, map[string]any{"command": "drgn: prog['nosuchsymbol']"}); o.Error == "" || r.Outcome != "failed" || !strings.Contains(o.Error, "KeyError") {
			t.Errorf("missing symbol: %+v\n%s", o, r.Text)
		}
	})
	t.Run("long output pages and searches", func(t *testing.T) {
		for _, command := range []string{"crash:log", "crash:kmem -s"} {
			r, o := cmd(t, map[string]any{"command": command})
			if r.IsError || !o.Truncated || o.TotalLines < 100 || !strings.Contains(r.Text, "output_get") {
				t.Fatalf("%s: %+v\n%s", command, o, r.Text)
			}
			page := c.Call("output_get", map[string]any{"output_id": o.OutputID, "offset": 50, "limit": 10})
			if page.IsError || strings.Count(page.Text, "\n") < 10 {
				t.Errorf("output_get:\n%s", page.Text)
			}
		}
		_, o := cmd(t, map[string]any{"command": "log"})
		s := c.Call("output_search", map[string]any{"output_id": o.OutputID, "pattern": "sysrq triggered crash"})
		if s.IsError || !strings.Contains(s.Text, "sysrq triggered crash") {
			t.Errorf("output_search:\n%s", s.Text)
		}
	})
	t.Run("host commands run, an interactive shell is refused", func(t *testing.T) {
		dir := t.TempDir()
		for i, command := range []string{"!touch %s", "log | tee %s", "log > %s"} {
			marker := filepath.Join(dir, fmt.Sprint("marker", i))
			r, _ := cmd(t, map[string]any{"command": fmt.Sprintf(command, marker)})
			if _, err := os.Stat(marker); r.IsError || err != nil {
				t.Errorf("%q: marker %v:\n%s", command, err, r.Text)
			}
		}
		// crash itself prohibits its gdb's shell ("crash: prohibited gdb
		// command: shell").
		for _, command := range []string{"!", " ! "} {
			if r, _ := cmd(t, map[string]any{"command": command}); r.Outcome != "usage_error" || !strings.Contains(r.Text, "as an interactive shell") {
				t.Errorf("%q:\n%s", command, r.Text)
			}
		}
	})
	t.Run("reopen dedupes", func(t *testing.T) {
		r := c.Call("dump_open", map[string]any{"vmcore": v.path, "vmlinux": v.vmlinux})
		var o wire.DumpSession
		r.Decode(t, &o)
		if !o.Reused || o.SessionID != so.SessionID || o.Refs != 2 {
			t.Errorf("reopen: %+v\n%s", o, r.Text)
		}
		if r := c.Call("dump_close", nil); !strings.HasPrefix(r.FirstLine(), "RELEASED") {
			t.Errorf("first close:\n%s", r.Text)
		}
	})
	t.Run("engine death and recovery", func(t *testing.T) {
		need(t, "drgn", "python3-drgn")
		// drgn dies mid-command.
		r, _ := cmd(t, map[string]any{"command": "drgn: import os, signal; os.kill(os.getpid(), signal.SIGKILL)"})
		if !r.IsError || !strings.Contains(r.Text, "drgn ended while running") || !strings.Contains(r.Text, "SIGKILL") {
			t.Fatalf("death mid-command:\n%s", r.Text)
		}
		r, o := cmd(t, map[string]any{"command": "drgn: prog['init_task'].comm"})
		if r.IsError || len(o.Notes) == 0 || !strings.Contains(r.Text, "swapper") {
			t.Errorf("after death: %+v\n%s", o, r.Text)
		}
		// crash is killed from outside between commands.
		var lo dump.ListOutput
		c.Call("dump_list", nil).Decode(t, &lo)
		pid := 0
		for _, e := range lo.Sessions[0].Engines {
			if e.Engine == "crash" {
				pid = e.Pid
			}
		}
		if pid == 0 {
			t.Fatalf("no crash pid: %+v", lo)
		}
		syscall.Kill(-pid, syscall.SIGKILL)
		r, o = cmd(t, map[string]any{"command": "crash: sys", "force": true})
		if r.IsError || !strings.Contains(r.Text, "sysrq triggered crash") {
			// The death may be seen by the command itself; the next one recovers.
			r, o = cmd(t, map[string]any{"command": "crash: sys", "force": true})
		}
		if r.IsError || !strings.Contains(r.Text, "sysrq triggered crash") || len(o.Notes) == 0 {
			t.Errorf("crash after kill: %+v\n%s", o, r.Text)
		}
	})
	t.Run("bad input", func(t *testing.T) {
		exe := crashers.Build(t, "segv")
		short := filepath.Join(t.TempDir(), "short.vmcore")
		copyPrefix(t, v.path, short, 16<<20)
		for _, tt := range []struct {
			args map[string]any
			want string
		}{
			{map[string]any{"vmcore": short, "vmlinux": v.vmlinux}, "truncated"},
			{map[string]any{"vmcore": v.path, "vmlinux": exe}, "vmlinux does not match"},
			{map[string]any{"core": v.path, "program": exe}, "not a process core"},
			{map[string]any{"vmcore": "/nonexistent", "vmlinux": v.vmlinux}, "no such file"},
		} {
			if r := c.Call("dump_open", tt.args); r.Outcome != "usage_error" || !strings.Contains(r.Text, tt.want) {
				t.Errorf("%v: %s\n%s", tt.args, r.Outcome, r.Text)
			}
		}
		if v.flat == "" {
			return
		}
		r := c.Call("dump_open", map[string]any{"vmcore": v.flat, "vmlinux": v.vmlinux})
		var o wire.DumpSession
		r.Decode(t, &o)
		r, _ = cmd(t, map[string]any{"session_id": o.SessionID, "command": "drgn: 1"})
		if !r.IsError || !strings.Contains(r.Text, "flattened") {
			t.Errorf("drgn on a flattened dump:\n%s", r.Text)
		}
		c.Call("dump_close", map[string]any{"session_id": o.SessionID})
	})
	if r := c.Call("dump_close", map[string]any{"session_id": so.SessionID}); !strings.HasPrefix(r.FirstLine(), "CLOSED") {
		t.Errorf("dump_close:\n%s", r.Text)
	}
}

func copyPrefix(t *testing.T, src, dst string, n int64) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.CopyN(out, in, n); err != nil {
		t.Fatal(err)
	}
}
