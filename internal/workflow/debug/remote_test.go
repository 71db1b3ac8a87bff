package debug_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/sshhost"
)

// Remote debugging: the adapter runs on the test host over its ssh
// connection, on a program and a core that exist only there.

// remoteClient is a triage client whose ssh configuration reaches h.
func remoteClient(t *testing.T, h *sshhost.Host) *mcptest.Client {
	return mcptest.Connect(t, &config.Config{SSH: config.SSH{Config: h.Config}})
}

// remoteProg puts the test program on h and returns its remote path, which
// does not exist on this side.
func remoteProg(t *testing.T, h *sshhost.Host) string {
	t.Helper()
	p := h.Put(t, prog(t), "prog")
	notLocal(t, p)
	return p
}

func notLocal(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("%s exists locally: the test host's files must not", p)
		}
	}
}

func TestRemoteLaunchBreakInspectExit(t *testing.T) {
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			testRemoteLaunch(t, backend.name)
		})
	}
}

func testRemoteLaunch(t *testing.T, backend string) {
	h := sshhost.Get(t)
	rprog := remoteProg(t, h)
	c := remoteClient(t, h)
	r := c.Call("debug_attach", map[string]any{"program": rprog, "breakpoints": []string{"prog.c:5"}, "ssh_host": h.Name, "backend": backend})
	if r.IsError || r.FirstLine() != "STOPPED at breakpoint 1 in add at prog.c:5 on "+h.Name {
		t.Fatalf("attach:\n%s", r.Text)
	}
	if st := c.Call("debug_stack", nil); !strings.Contains(st.Text, "add at prog.c:5") || !strings.Contains(st.Text, "main at prog.c:12") {
		t.Errorf("stack:\n%s", st.Text)
	}
	if v := c.Call("debug_variables", nil); v.IsError || !strings.Contains(v.Text, "a (int) = 0") || !strings.Contains(v.Text, "b (int) = 0") {
		t.Errorf("variables:\n%s", v.Text)
	}
	// The third call is add(1, 2).
	c.Call("debug_continue", map[string]any{"wait_s": 30})
	if s := c.Call("debug_continue", map[string]any{"wait_s": 30}); s.FirstLine() != "STOPPED at breakpoint 1 in add at prog.c:5 on "+h.Name {
		t.Fatalf("continue to the breakpoint:\n%s", s.Text)
	}
	if e := c.Call("debug_evaluate", map[string]any{"expression": "a * 10 + b"}); e.IsError || !strings.Contains(e.FirstLine(), "= 12") {
		t.Errorf("evaluate:\n%s", e.Text)
	}
	if s := c.Call("debug_step", nil); s.IsError || s.FirstLine() != "STOPPED (step) in add at prog.c:6 on "+h.Name {
		t.Errorf("step over:\n%s", s.Text)
	}
	c.Call("debug_breakpoint_remove", map[string]any{"id": 1})
	if end := c.Call("debug_continue", map[string]any{"wait_s": 30}); end.FirstLine() != "EXITED (code 3) on "+h.Name {
		t.Errorf("continue to the end:\n%s", end.Text)
	}
	if d := c.Call("debug_detach", nil); d.IsError {
		t.Errorf("detach:\n%s", d.Text)
	}
	h.WaitNothingLeft(t, 20*time.Second)
}

func TestRemoteCore(t *testing.T) {
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			testRemoteCore(t, backend.name)
		})
	}
}

func testRemoteCore(t *testing.T, backend string) {
	h := sshhost.Get(t)
	rprog, rcore := remoteProg(t, h), h.Put(t, crashCore(t), "prog.core")
	notLocal(t, rcore)
	c := remoteClient(t, h)
	r := c.Call("debug_attach", map[string]any{"core": rcore, "program": rprog, "ssh_host": h.Name, "backend": backend})
	if r.FirstLine() != "CRASHED (SIGSEGV) in main at prog.c:17 on "+h.Name || r.Outcome != "failed" {
		t.Fatalf("core (outcome %s):\n%s", r.Outcome, r.Text)
	}
	if v := c.Call("debug_evaluate", map[string]any{"expression": "total"}); v.IsError || !strings.Contains(v.FirstLine(), "= 10") {
		t.Errorf("a local from the core:\n%s", v.Text)
	}
	if backend == "lldb" {
		// lldb is started again on the core, as when it is killed.
		syscall.Kill(-h.Master(t), syscall.SIGKILL)
		v := c.Call("debug_evaluate", map[string]any{"expression": "total"})
		if !v.IsError || !strings.Contains(v.Text, "ssh connection lost to "+h.Name) || !strings.Contains(v.Text, "session goes on") {
			t.Errorf("a command as the connection drops:\n%s", v.Text)
		}
		if v := c.Call("debug_evaluate", map[string]any{"expression": "total"}); v.IsError || !strings.Contains(v.FirstLine(), "= 10") {
			t.Errorf("the core after reconnecting:\n%s", v.Text)
		}
	}
	c.Call("debug_detach", nil)
	// ssh_host as a session default: the core is looked for on the host.
	c.Call("session_set_defaults", map[string]any{"ssh_host": h.Name})
	missing := c.Call("debug_attach", map[string]any{"core": h.Root + "/nosuch.core", "program": rprog, "backend": backend})
	if missing.Outcome != "usage_error" || !strings.Contains(missing.Text, "on "+h.Name) || !strings.Contains(missing.Text, "No such file") {
		t.Errorf("a core missing on the host (%s):\n%s", missing.Outcome, missing.Text)
	}
	h.WaitNothingLeft(t, 20*time.Second)
}

// crashCore runs the test program to its crash here and returns its core.
func crashCore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{prog(t), "crash"}, Dir: dir, CoreDumps: true, Timeout: 30 * time.Second})
	if err != nil || !res.CoreDumped {
		t.Skipf("no core dumped here (core_pattern): %v %+v", err, res)
	}
	core := filepath.Join(dir, "core")
	if _, err := os.Stat(core); err != nil {
		t.Skipf("core not in the cwd (core_pattern is not \"core\"): %v", err)
	}
	return core
}

// A connection killed under a session ends it, saying so; the next
// debug_attach connects again.
func TestRemoteConnectionLost(t *testing.T) {
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			testRemoteConnectionLost(t, backend.name)
		})
	}
}

func testRemoteConnectionLost(t *testing.T, backend string) {
	h := sshhost.Get(t)
	rprog := remoteProg(t, h)
	c := remoteClient(t, h)
	args := map[string]any{"program": rprog, "breakpoints": []string{"add"}, "ssh_host": h.Name, "backend": backend}
	if r := c.Call("debug_attach", args); r.IsError || !strings.HasPrefix(r.FirstLine(), "STOPPED at breakpoint 1 in add") {
		t.Fatalf("attach:\n%s", r.Text)
	}
	syscall.Kill(-h.Master(t), syscall.SIGKILL)
	r := c.Call("debug_stack", nil)
	if !r.IsError || !strings.Contains(r.Text, "ssh connection lost to "+h.Name) || !strings.Contains(r.Text, "session ended") {
		t.Fatalf("a call after the connection dropped:\n%s", r.Text)
	}
	h.WaitNothingLeft(t, 20*time.Second)
	again := c.Call("debug_attach", args)
	if again.IsError || again.FirstLine() != "STOPPED at breakpoint 1 in add at prog.c:5 on "+h.Name {
		t.Fatalf("attach after reconnecting:\n%s", again.Text)
	}
	if st := c.Call("debug_stack", nil); st.IsError || !strings.Contains(st.Text, "main at prog.c:12") {
		t.Errorf("stack after reconnecting:\n%s", st.Text)
	}
	// A session the server still holds ends with it, there too.
	c.Svc.Close()
	h.WaitNothingLeft(t, 20*time.Second)
}

// Attaching to a process on the host leaves it running there.
func TestRemoteAttachToProcess(t *testing.T) {
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			testRemoteAttach(t, backend.name)
		})
	}
}

func testRemoteAttach(t *testing.T, backend string) {
	h := sshhost.Get(t)
	c := remoteClient(t, h)
	ctx := context.Background()
	conn, err := c.Svc.Remote().Conn(ctx, h.Name)
	if err != nil {
		t.Fatal(err)
	}
	out, err := conn.Run(ctx, []string{"sh", "-c", "sleep 600 >/dev/null 2>&1 </dev/null & echo $!"}, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(out))
	defer conn.Kill(ctx, pid)
	r := c.Call("debug_attach", map[string]any{"pid": pid, "ssh_host": h.Name, "backend": backend})
	if r.IsError || !strings.HasSuffix(r.FirstLine(), " on "+h.Name) {
		t.Fatalf("attach to %d there:\n%s", pid, r.Text)
	}
	if p := c.Call("debug_pause", nil); !strings.HasPrefix(p.FirstLine(), "STOPPED") {
		t.Fatalf("pause:\n%s", p.Text)
	}
	if st := c.Call("debug_stack", nil); st.IsError || !strings.Contains(st.Text, "sleep") {
		t.Errorf("stack of the attached process:\n%s", st.Text)
	}
	if d := c.Call("debug_detach", nil); d.IsError {
		t.Fatalf("detach:\n%s", d.Text)
	}
	if alive, err := conn.ProcessExists(ctx, pid); !alive || err != nil {
		t.Errorf("detaching ended the attached process on the host: %v", err)
	}
	gone := c.Call("debug_attach", map[string]any{"pid": 999999999, "ssh_host": h.Name, "backend": backend})
	if gone.Outcome != "usage_error" || !strings.Contains(gone.Text, "no process with pid 999999999 on "+h.Name) {
		t.Errorf("attach to a pid the host does not have (%s):\n%s", gone.Outcome, gone.Text)
	}
}

// A remote session's paths are the host's: a relative one, which the
// remote login directory would take, is refused before connecting, as is
// a host ssh would read as an option.
func TestRemoteBadInput(t *testing.T) {
	c := mcptest.Connect(t, nil)
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"program": "bin/prog", "ssh_host": "h"}, "program bin/prog: give an absolute path on h"},
		{map[string]any{"core": "core", "program": "/bin/prog", "ssh_host": "h"}, "core core: give an absolute path on h"},
		{map[string]any{"program": "prog", "cwd": "work", "ssh_host": "h"}, "cwd work: give an absolute path on h"},
		{map[string]any{"program": "/bin/prog", "ssh_host": "-oProxyCommand=x"}, "bad ssh host"},
	} {
		r := c.Call("debug_attach", tt.args)
		if r.Outcome != "usage_error" || !strings.Contains(r.Text, tt.want) {
			t.Errorf("%v: %s %q, want %q", tt.args, r.Outcome, r.Text, tt.want)
		}
	}
}
