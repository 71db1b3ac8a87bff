package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
)

// soakCycles is how many open/close cycles of a debug and a dump session
// TestSoak* make: TRIAGE_SOAK_CYCLES, default 4 (CI); `make soak` runs 300.
func soakCycles() int {
	if n, err := strconv.Atoi(os.Getenv("TRIAGE_SOAK_CYCLES")); err == nil && n > 0 {
		return n
	}
	return 4
}

// caller makes one tool call: text, error flag, structured content.
type caller func(name string, args map[string]any) (string, bool, map[string]any)

// soakKit is what a cycle needs: a program to debug and a core to open.
type soakKit struct{ target, exe, core string }

func newSoakKit(t *testing.T) soakKit {
	need(t, "lldb-vscode-16", "apt-get install lldb-16")
	need(t, "gdb", "apt-get install gdb")
	k := soakKit{target: crashers.Build(t, "sleeper"), exe: crashers.Build(t, "segv")}
	dir := t.TempDir()
	// The core limit is raised for this child alone, as triage's own runs do.
	cmd := exec.Command(need(t, "prlimit", "apt-get install util-linux"), "--core=unlimited", "--", k.exe)
	cmd.Dir = dir
	cmd.Run()
	cores, _ := filepath.Glob(filepath.Join(dir, "core*"))
	if len(cores) == 0 {
		t.Skip("no core file: kernel.core_pattern sends cores elsewhere")
	}
	k.core = cores[0]
	return k
}

// soakCycle opens, uses and closes a debug session and a dump session, and
// runs a program. It returns the number of calls made.
func soakCycle(t *testing.T, call caller, k soakKit) int {
	t.Helper()
	must := func(name string, args map[string]any, want string) map[string]any {
		t.Helper()
		text, isErr, out := call(name, args)
		if isErr || !strings.Contains(text, want) {
			t.Fatalf("%s: error %v, want %q in:\n%.500s", name, isErr, want, text)
		}
		return out
	}
	out := must("debug_attach", map[string]any{"program": k.target, "args": []string{"600"}, "breakpoints": []string{"main"}}, "")
	sid, _ := out["session_id"].(string)
	must("debug_stack", map[string]any{"session_id": sid}, "main")
	must("debug_detach", map[string]any{"session_id": sid}, "")
	out = must("dump_open", map[string]any{"core": k.core, "program": k.exe}, "")
	did, _ := out["session_id"].(string)
	must("dump_command", map[string]any{"session_id": did, "command": "gdb: bt", "force": true}, "crash")
	must("dump_close", map[string]any{"session_id": did}, "")
	must("run", map[string]any{"program": "true"}, "SUCCEEDED")
	return 7
}

// figure logs a line scripts/soak.sh collects for docs/RELIABILITY.md.
func figure(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Logf("FIGURE "+format, args...)
}

// TestSoakInProcess: repeated debug and dump sessions leave the number of
// goroutines where it was after warm-up.
func TestSoakInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("soak")
	}
	k := newSoakKit(t)
	c := mcptest.Connect(t, nil)
	call := func(name string, args map[string]any) (string, bool, map[string]any) {
		r := c.Call(name, args)
		return r.Text, r.IsError, r.Out
	}
	calls := soakCycle(t, call, k) // warm-up: lazily started services
	calls += soakCycle(t, call, k)
	before := settledGoroutines(0)
	n := soakCycles()
	for range n {
		calls += soakCycle(t, call, k)
	}
	after := settledGoroutines(before + 5)
	figure(t, "soak in-process: cycles=%d calls=%d goroutines before=%d after=%d", n, calls, before, after)
	if after > before+5 {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines grew from %d to %d over %d cycles:\n%s", before, after, n, buf[:runtime.Stack(buf, true)])
	}
}

// settledGoroutines waits up to 10 s for the goroutine count to drop to at
// most target (0: just let it settle), then returns it. Goroutines of a
// closed session end asynchronously; nothing signals their end.
func settledGoroutines(target int) int {
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		n := runtime.NumGoroutine()
		if (target > 0 && n <= target) || time.Now().After(deadline) || target == 0 {
			return n
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestSoakServer: the same cycles against `triage serve --http`; its file
// descriptors and threads do not grow, its resident memory stays within a
// bound after warm-up, and no process is left behind, during or after.
func TestSoakServer(t *testing.T) {
	if testing.Short() {
		t.Skip("soak")
	}
	k := newSoakKit(t)
	dir := t.TempDir()
	s := startServer(t, dir, filepath.Join(dir, "store", "out.db"), nil)
	call := func(name string, args map[string]any) (string, bool, map[string]any) {
		return s.call(name, args)
	}
	calls := soakCycle(t, call, k)
	calls += soakCycle(t, call, k)
	fd0, rss0, thr0 := procStats(t, s.pid)
	n := soakCycles()
	start := time.Now()
	for i := range n {
		calls += soakCycle(t, call, k)
		if kids := children(s.pid); len(kids) > 0 {
			t.Fatalf("cycle %d left children of the server: %v", i, kids)
		}
	}
	fd1, rss1, thr1 := procStats(t, s.pid)
	orphans := strayProcesses(k)
	figure(t, "soak server: cycles=%d calls=%d in %v fds before=%d after=%d rss_kb before=%d after=%d threads before=%d after=%d orphans=%d",
		n, calls, time.Since(start).Round(time.Second), fd0, fd1, rss0, rss1, thr0, thr1, len(orphans))
	if fd1 > fd0+4 {
		t.Errorf("file descriptors grew from %d to %d over %d cycles", fd0, fd1, n)
	}
	if rss1 > rss0+max(rss0/2, 48<<10) {
		t.Errorf("resident memory grew from %d KiB to %d KiB over %d cycles", rss0, rss1, n)
	}
	if thr1 > thr0+8 {
		t.Errorf("threads grew from %d to %d over %d cycles", thr0, thr1, n)
	}
	s.stop()
	if left := strayProcesses(k); len(left) > 0 || len(orphans) > 0 {
		t.Errorf("processes left behind: during %v, after shutdown %v", orphans, left)
	}
}

// procStats reads a process's open descriptors, resident KiB and threads.
func procStats(t *testing.T, pid int) (fds int, rssKB int, threads int) {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(status), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "VmRSS:" {
			rssKB, _ = strconv.Atoi(f[1])
		}
		if len(f) >= 2 && f[0] == "Threads:" {
			threads, _ = strconv.Atoi(f[1])
		}
	}
	return len(ents), rssKB, threads
}

// children lists the live child processes of pid.
func children(pid int) []string {
	out, _ := exec.CommandContext(context.Background(), "pgrep", "-l", "-P", strconv.Itoa(pid)).Output()
	return strings.Fields(string(out))
}

// strayProcesses lists processes running the soak's programs or the engines
// it drove, anywhere in the process table.
func strayProcesses(k soakKit) []string {
	var out []string
	for _, p := range testutil.OwnProcesses() {
		_, cmd, _ := strings.Cut(p, " ")
		if strings.HasPrefix(cmd, k.target) || strings.HasPrefix(cmd, k.exe) {
			out = append(out, p)
		}
	}
	return out
}
