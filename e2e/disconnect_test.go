package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/toolpath"
)

// TestClientDisconnectKillsChildren: a client that goes away mid-call (stdin
// closed) must leave no process behind — neither the foreground run nor a
// background process — and the server must exit.
func TestClientDisconnectKillsChildren(t *testing.T) {
	c := startStdio(t)
	c.initialize()
	sleeper := crashers.Build(t, "sleeper")
	dir := t.TempDir()
	// The foreground child announces its pid through a FIFO: opening it for
	// reading blocks until the child opens it for writing.
	pidFile := filepath.Join(dir, "fg.pid")
	if err := syscall.Mkfifo(pidFile, 0o600); err != nil {
		t.Fatal(err)
	}
	// A background process...
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"process_start","arguments":{"program":"` + sleeper + `","args":["600"]}}}`)
	m := c.recv()
	bgPid := int(m["result"].(map[string]any)["structuredContent"].(map[string]any)["pid"].(float64))
	// ...and a foreground run that records its pid and then sleeps.
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run","arguments":{"program":"sh","args":["-c","echo $$ > %s; exec %s 600"]}}}`, pidFile, sleeper))
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	fgPid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if fgPid == 0 || !testutil.ProcessAlive(fgPid) || !testutil.ProcessAlive(bgPid) {
		t.Fatalf("children not running: fg %d bg %d", fgPid, bgPid)
	}
	c.in.Close() // the client goes away
	var survivors []string
	for name, pid := range map[string]int{"the foreground run": fgPid, "the background process": bgPid} {
		if !testutil.WaitGone(pid, 15*time.Second) {
			stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			survivors = append(survivors, fmt.Sprintf("%s (pid %d, stat %q)", name, pid, stat))
		}
	}
	if survivors != nil {
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.pid))
		t.Errorf("%s survived the client's disconnect; the server (stat %q), its log and stacks:\n%s", strings.Join(survivors, " and "), stat, c.dumpServer())
	}
}

// TestShutdownDisposesDebugSessions: when the client goes away, triage ends
// its debug sessions, so neither the debuggee nor the adapter survives.
func TestShutdownDisposesDebugSessions(t *testing.T) {
	needLLDBAdapter(t)
	c := startStdio(t)
	c.initialize()
	target := crashers.Build(t, "sleeper")
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"debug_attach","arguments":{"program":"` + target + `","args":["600"],"breakpoints":["main"]}}}`)
	m := c.recv()
	res, _ := m["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	state, _ := sc["state"].(map[string]any)
	pid, _ := state["pid"].(float64)
	if pid == 0 {
		t.Fatalf("debug_attach: %v", m)
	}
	adapters := pgrep(t, c.pid, lldbAdapterProcess)
	c.in.Close()
	if !testutil.WaitGone(int(pid), 15*time.Second) {
		t.Errorf("debuggee %d survived the server's shutdown", int(pid))
	}
	if len(adapters) == 0 {
		t.Error("no lldb adapter (lldb-dap, lldb-vscode) found under the server")
	}
	for _, a := range adapters {
		if !testutil.WaitGone(a, 15*time.Second) {
			t.Errorf("adapter %d survived the server's shutdown", a)
		}
	}
}

// lldbAdapterProcess matches the process name of either lldb adapter, the
// default one (lldb-dap-22's wrapper execs a plain lldb-dap) or
// lldb-vscode-16.
const lldbAdapterProcess = `lldb-(dap|vscode)(-[0-9]+)?`

// needLLDBAdapter needs the lldb adapter a debug session starts by
// default.
func needLLDBAdapter(t *testing.T) {
	t.Helper()
	if _, err := toolpath.LLDBDAP.Find(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// pgrep lists the children of parent whose name matches name (a regular
// expression, whole).
func pgrep(t *testing.T, parent int, name string) []int {
	out, _ := exec.Command("pgrep", "-P", strconv.Itoa(parent), "-x", name).Output()
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}
