package dump_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/dump"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// makeCore runs a crasher with core dumps on and returns it and its core.
func makeCore(t testing.TB, name string) (exe, core string) {
	t.Helper()
	exe = crashers.Build(t, name)
	dir := t.TempDir()
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{exe}, Dir: dir, CoreDumps: true, Timeout: 30 * time.Second})
	if err != nil || !res.Signaled {
		t.Fatalf("%s: %v %v", name, res, err)
	}
	cores, _ := filepath.Glob(filepath.Join(dir, "core*"))
	if len(cores) == 0 {
		t.Skipf("no core file in %s: kernel.core_pattern sends cores elsewhere", dir)
	}
	return exe, cores[0]
}

func need(t testing.TB, bin, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(bin); err != nil {
		t.Skipf("%s not installed (Debian package %s)", bin, pkg)
	}
}

func TestProcessCore(t *testing.T) {
	need(t, "gdb", "gdb")
	exe, core := makeCore(t, "segv")
	c := mcptest.Connect(t, nil)
	open := c.Call("dump_open", map[string]any{"core": core, "program": exe})
	if open.IsError || !strings.HasPrefix(open.FirstLine(), "OPENED dump-") {
		t.Fatalf("dump_open:\n%s", open.Text)
	}
	var so wire.DumpSession
	open.Decode(t, &so)

	rep := c.Call("dump_report", nil)
	if rep.IsError || rep.Outcome != "failed" {
		t.Fatalf("dump_report:\n%s", rep.Text)
	}
	if want := "CRASHED (SIGSEGV) in crash_here at segv.c:5, fault address 0x0"; rep.FirstLine() != want {
		t.Errorf("verdict %q, want %q\n%s", rep.FirstLine(), want, rep.Text)
	}
	var ro wire.DumpReport
	rep.Decode(t, &ro)
	if len(ro.Registers) == 0 || !strings.Contains(strings.Join(ro.Registers, " "), "rip") || ro.OutputID == "" {
		t.Errorf("report output: %+v", ro)
	}

	t.Run("routing and cache", func(t *testing.T) {
		r1 := c.Call("dump_command", map[string]any{"command": "bt"})
		r2 := c.Call("dump_command", map[string]any{"command": "gdb: bt"})
		var o1, o2 wire.DumpCommand
		r1.Decode(t, &o1)
		r2.Decode(t, &o2)
		if o1.Engine != "gdb" || !strings.Contains(r1.Text, "crash_here") {
			t.Fatalf("bt:\n%s", r1.Text)
		}
		if !o2.Cached || o2.OutputID != o1.OutputID {
			t.Errorf("second bt not served from the cache: %+v", o2)
		}
		r3 := c.Call("dump_command", map[string]any{"command": "bt", "force": true})
		var o3 wire.DumpCommand
		r3.Decode(t, &o3)
		if o3.Cached || o3.OutputID == o1.OutputID {
			t.Errorf("force did not re-run: %+v", o3)
		}
		// Another frame, another key.
		c.Call("dump_command", map[string]any{"command": "frame 1"})
		r4 := c.Call("dump_command", map[string]any{"command": "info frame"})
		var o4 wire.DumpCommand
		r4.Decode(t, &o4)
		if o4.Cached || o4.Context.Frame != 1 {
			t.Errorf("info frame after frame 1: %+v\n%s", o4, r4.Text)
		}
	})
	t.Run("engine errors are not cached", func(t *testing.T) {
		for range 2 {
			r := c.Call("dump_command", map[string]any{"command": "p nosuchsymbol"})
			var o wire.DumpCommand
			r.Decode(t, &o)
			if r.Outcome != "failed" || o.Cached || !strings.HasPrefix(r.FirstLine(), "ENGINE ERROR gdb") {
				t.Errorf("%+v\n%s", o, r.Text)
			}
		}
	})
	t.Run("lldb", func(t *testing.T) {
		need(t, "lldb-16", "lldb-16")
		r := c.Call("dump_command", map[string]any{"command": "lldb: bt"})
		if r.IsError || !strings.Contains(r.Text, "crash_here") {
			t.Errorf("lldb bt:\n%s", r.Text)
		}
	})
	t.Run("drgn", func(t *testing.T) {
		need(t, "drgn", "python3-drgn")
		r := c.Call("dump_command", map[string]any{"command": "drgn: prog.crashed_thread().stack_trace()"})
		if r.IsError || !strings.Contains(r.Text, "crash_here") {
			t.Errorf("drgn stack trace:\n%s", r.Text)
		}
	})
	t.Run("timeout kills and restarts", func(t *testing.T) {
		need(t, "drgn", "python3-drgn")
		r := c.Call("dump_command", map[string]any{"engine": "drgn", "timeout_s": 0.5,
			"command": "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(60)"})
		if !r.IsError || !strings.Contains(r.Text, "timed out after 500ms") || !strings.Contains(r.Text, "restarted it") {
			t.Fatalf("spinning command:\n%s", r.Text)
		}
		if r := c.Call("dump_command", map[string]any{"command": "drgn: 6*7"}); r.IsError || !strings.Contains(r.Text, "42") {
			t.Errorf("after restart:\n%s", r.Text)
		}
	})
	t.Run("timeout names its limit", func(t *testing.T) {
		r := c.Call("dump_command", map[string]any{"timeout_s": 0.5, "command": "gdb: python import time; time.sleep(60)"})
		if want := "timed out after 500ms (timeout_s, at most 3600)"; !r.IsError || !strings.Contains(r.Text, want) {
			t.Fatalf("sleeping gdb command, want %q:\n%s", want, r.Text)
		}
		if r := c.Call("dump_command", map[string]any{"command": "gdb: p 6*7"}); r.IsError || !strings.Contains(r.Text, "42") {
			t.Errorf("after the timeout:\n%s", r.Text)
		}
	})
	t.Run("bad commands", func(t *testing.T) {
		for _, tt := range []struct{ cmd, want string }{
			{"crash: bt", "does not read a process core"},
			{"windbg: k", "unknown engine prefix"},
			{"shell", "interactive shell"},
			{"", "empty command"},
		} {
			r := c.Call("dump_command", map[string]any{"command": tt.cmd})
			if r.Outcome != "usage_error" || !strings.Contains(r.Text, tt.want) {
				t.Errorf("%q: outcome %s\n%s", tt.cmd, r.Outcome, r.Text)
			}
		}
	})

	// Closing stops every engine.
	var pids []int
	list := c.Call("dump_list", nil)
	var lo dump.ListOutput
	list.Decode(t, &lo)
	for _, s := range lo.Sessions {
		for _, e := range s.Engines {
			if e.Pid != 0 {
				pids = append(pids, e.Pid)
			}
		}
	}
	if len(pids) == 0 {
		t.Fatalf("no running engine listed:\n%s", list.Text)
	}
	if r := c.Call("dump_close", map[string]any{"session_id": so.SessionID}); !strings.HasPrefix(r.FirstLine(), "CLOSED") {
		t.Fatalf("dump_close:\n%s", r.Text)
	}
	for _, p := range pids {
		if testutil.ProcessAlive(p) {
			t.Errorf("engine pid %d outlived dump_close", p)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	exe, core := makeCore(t, "abort")
	c := mcptest.Connect(t, nil)
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "give vmcore + vmlinux"},
		{map[string]any{"core": core}, "core needs program"},
		{map[string]any{"vmcore": core}, "vmcore needs vmlinux"},
		{map[string]any{"vmcore": core, "vmlinux": exe}, "process core, not a kernel dump"},
		{map[string]any{"core": "/nonexistent/core", "program": exe}, "no such file"},
		{map[string]any{"core": exe, "program": exe}, "not a dump"},
		{map[string]any{"core": core, "program": exe, "extra_args": map[string]any{"windbg": []string{"-x"}}}, "unknown engine"},
	}
	for _, tt := range tests {
		r := c.Call("dump_open", tt.args)
		if r.Outcome != "usage_error" || !strings.Contains(r.Text, tt.want) {
			t.Errorf("%v: outcome %s, want usage error saying %q:\n%s", tt.args, r.Outcome, tt.want, r.Text)
		}
	}
	// abort's crash site is the program's own frame, not libc's.
	need(t, "gdb", "gdb")
	if r := c.Call("dump_open", map[string]any{"core": core, "program": exe}); r.IsError {
		t.Fatal(r.Text)
	}
	rep := c.Call("dump_report", nil)
	if !strings.HasPrefix(rep.FirstLine(), "CRASHED (SIGABRT) in ") || !strings.Contains(rep.FirstLine(), "abort.c:") {
		t.Errorf("abort report:\n%s", rep.Text)
	}
}

func TestScripts(t *testing.T) {
	need(t, "drgn", "python3-drgn")
	exe, core := makeCore(t, "segv")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "hello.py"), []byte("\"\"\"Say hello to the crashed thread.\"\"\"\nimport sys\nprint('hello', sys.argv[1:], prog.crashed_thread().tid > 0)\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a script"), 0o644)
	c := mcptest.Connect(t, &config.Config{Dump: config.Dump{ScriptDirs: []string{dir}}})
	list := c.Call("dump_scripts", nil)
	if !strings.Contains(list.Text, "hello: Say hello to the crashed thread.") || strings.Contains(list.Text, "notes") {
		t.Fatalf("listing:\n%s", list.Text)
	}
	if r := c.Call("dump_scripts", map[string]any{"name": "hello"}); r.Outcome != "usage_error" || !strings.Contains(r.Text, "dump_open") {
		t.Errorf("without a session:\n%s", r.Text)
	}
	c.Call("dump_open", map[string]any{"core": core, "program": exe})
	r := c.Call("dump_scripts", map[string]any{"name": "hello.py", "args": []string{"a b", `it's "x"`}})
	if r.IsError || !strings.Contains(r.Text, `hello ['a b', 'it\'s "x"'] True`) {
		t.Errorf("run:\n%s", r.Text)
	}
	if r := c.Call("dump_scripts", map[string]any{"name": "../etc/passwd"}); r.Outcome != "usage_error" {
		t.Errorf("path as name:\n%s", r.Text)
	}
}

// TestServicesCloseDisposesSessions: shutting triage down stops every
// engine of every open session.
func TestServicesCloseDisposesSessions(t *testing.T) {
	need(t, "gdb", "gdb")
	exe, core := makeCore(t, "segv")
	c := mcptest.Connect(t, nil)
	c.Call("dump_open", map[string]any{"core": core, "program": exe})
	c.Call("dump_open", map[string]any{"core": core, "program": exe}) // two references
	if r := c.Call("dump_command", map[string]any{"command": "bt"}); r.IsError {
		t.Fatal(r.Text)
	}
	var lo dump.ListOutput
	c.Call("dump_list", nil).Decode(t, &lo)
	pid := lo.Sessions[0].Engines[0].Pid
	if pid == 0 {
		t.Fatalf("gdb not running: %+v", lo)
	}
	c.Svc.Close()
	if testutil.ProcessAlive(pid) {
		t.Errorf("gdb %d outlived services Close", pid)
	}
}

// dump_report names the calls that usually come next, and each of them
// runs on the dump as suggested: the crashing frame's locals (not frame 0's,
// a libc routine's), the faulting address's mapping, every thread.
func TestReportNextStepsRun(t *testing.T) {
	need(t, "gdb", "gdb")
	for _, name := range []string{"segv", "stackoverflow"} {
		t.Run(name, func(t *testing.T) {
			exe, core := makeCore(t, name)
			c := mcptest.Connect(t, nil)
			if open := c.Call("dump_open", map[string]any{"core": core, "program": exe}); open.IsError {
				t.Fatal(open.Text)
			}
			var ro wire.DumpReport
			c.Call("dump_report", nil).Decode(t, &ro)
			if len(ro.Next) < 2 {
				t.Fatalf("next steps: %+v", ro.Next)
			}
			for _, h := range ro.Next {
				r := c.Call(h.Tool, h.Args)
				if r.IsError || r.Outcome != "ok" || strings.Contains(r.Text, "ENGINE ERROR") {
					t.Errorf("%s %v: %s\n%s", h.Tool, h.Args, h.Text, r.Text)
				}
			}
		})
	}
}
