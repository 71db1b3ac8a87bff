package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// shell is a user at a shell in dir: every call is a separate triage
// process, with the CLI's daemon on (it is off for the other tests) in a
// runtime directory of the test's own.
type shell struct {
	t   *testing.T
	dir string
	env []string
}

func newShell(t *testing.T, dir string) *shell {
	// A short runtime directory: the test's own may be too deep for a
	// socket path (108 bytes).
	rt, err := os.MkdirTemp("/tmp", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rt) })
	env := []string{"XDG_RUNTIME_DIR=" + rt, "TRIAGE_DAEMON=", "TRIAGE_DAEMON_IDLE=5m", "TRIAGE_STORE=" + filepath.Join(t.TempDir(), "out.db")}
	sh := &shell{t: t, dir: dir, env: env}
	t.Cleanup(func() {
		if code, out, errs := sh.run("daemon", "stop"); code != 0 {
			t.Errorf("triage daemon stop: exit %d: %s %s", code, out, errs)
		}
	})
	return sh
}

// run runs one triage command and returns its exit status and output.
func (sh *shell) run(args ...string) (int, string, string) {
	sh.t.Helper()
	cmd := exec.Command(triageBin, args...)
	cmd.Dir = sh.dir
	cmd.Env = append(os.Environ(), sh.env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		sh.t.Fatalf("triage %s: %v", strings.Join(args, " "), err)
	}
	return code, out.String(), errb.String()
}

// call runs a tool and fails the test unless it exits with want.
func (sh *shell) call(want int, args ...string) string {
	sh.t.Helper()
	code, out, errs := sh.run(args...)
	if code != want {
		sh.t.Fatalf("triage %s: exit %d, want %d:\n%s%s", strings.Join(args, " "), code, want, out, errs)
	}
	return out
}

// daemonPid is the pid the running daemon recorded.
func (sh *shell) daemonPid() int {
	sh.t.Helper()
	out := sh.call(0, "daemon", "status")
	m := regexp.MustCompile(`pid (\d+)`).FindStringSubmatch(out)
	if m == nil {
		sh.t.Fatalf("daemon status: %s", out)
	}
	pid, _ := strconv.Atoi(m[1])
	return pid
}

// A background process started by one triage command is read and stopped
// by later ones: the daemon keeps it between calls.
func TestDaemonKeepsProcessesBetweenCalls(t *testing.T) {
	sh := newShell(t, t.TempDir())
	out := sh.call(0, "process_start", "--program", "sh", "--args", "-c", "--args", "echo hello; exec sleep 60")
	if !strings.Contains(out, "STARTED p1") {
		t.Fatalf("process_start: %s", out)
	}
	if out := sh.call(0, "process_output", "--id", "p1", "--wait_s", "10"); !strings.Contains(out, "hello") {
		t.Errorf("process_output: %s", out)
	}
	if out := sh.call(1, "process_stop", "--id", "p1"); !strings.Contains(out, "INTERRUPTED") {
		t.Errorf("process_stop: %s", out)
	}
}

// The loop an agent runs from a shell, each step its own triage command: a
// test run crashes, its core is opened and examined, the program is
// debugged to the crashing line.
func TestDaemonCrashToCoreToDebugger(t *testing.T) {
	nativeprojects.Need(t, "make", "cc", "gdb", "lldb-vscode-16")
	dir := nativeprojects.Write(t, nativeprojects.Make())
	sh := newShell(t, dir)
	out := sh.call(1, "test", "--project_dir", dir)
	args := suggestedArgs(out, "dump_open")
	if !strings.HasPrefix(out, "CRASHED") || args == nil {
		t.Fatalf("test: want a crash with a dump_open hint:\n%s", out)
	}
	out = sh.call(0, append([]string{"dump_open"}, args...)...)
	if !strings.Contains(out, "lib.c:4") {
		t.Errorf("dump_open does not name the crashing line:\n%s", out)
	}
	// A report of a crashed process says so (exit 1, like every crash verdict).
	if out := sh.call(1, "dump_report"); !strings.Contains(out, "name_length") {
		t.Errorf("dump_report:\n%s", out)
	}
	if out := sh.call(0, "dump_command", "--command", "bt"); !strings.Contains(out, "name_length") {
		t.Errorf("dump_command:\n%s", out)
	}
	program := args[slices.Index(args, "--program")+1]
	out = sh.call(0, "debug_attach", "--program", program, "--stop_on_entry")
	if !strings.Contains(out, "STOPPED") {
		t.Fatalf("debug_attach stopped on entry:\n%s", out)
	}
	sh.call(0, "debug_breakpoint_add", "--location", "name_length")
	out = sh.call(0, "debug_continue")
	if !strings.Contains(out, "STOPPED") || !strings.Contains(out, "name_length") {
		t.Fatalf("debug_continue to the breakpoint:\n%s", out)
	}
	if out := sh.call(0, "debug_stack"); !strings.Contains(out, "main") {
		t.Errorf("debug_stack:\n%s", out)
	}
	if out := sh.call(0, "debug_variables"); !strings.Contains(out, "s") {
		t.Errorf("debug_variables:\n%s", out)
	}
	sh.call(0, "debug_detach")
}

// A daemon killed with SIGKILL mid-session is replaced by the next call,
// which says what was lost; the state of the old one is gone, and said so.
func TestDaemonKilledIsReplaced(t *testing.T) {
	sh := newShell(t, t.TempDir())
	sh.call(0, "process_start", "--program", "sh", "--args", "-c", "--args", "exec sleep 60")
	old := sh.daemonPid()
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	code, out, errs := sh.run("process_output", "--id", "p1")
	if !strings.Contains(errs, "had ended without cleaning up") || !strings.Contains(errs, strconv.Itoa(old)) {
		t.Errorf("the call after the kill does not say the daemon was replaced: exit %d\n%s%s", code, out, errs)
	}
	if code != 2 || !strings.Contains(out+errs, `"p1"`) {
		t.Errorf("p1 of the killed daemon: exit %d, want a usage error naming it:\n%s%s", code, out, errs)
	}
	if pid := sh.daemonPid(); pid == old {
		t.Errorf("still pid %d", pid)
	}
}

// Concurrent first calls start one daemon, not several.
func TestDaemonStartsOnce(t *testing.T) {
	sh := newShell(t, t.TempDir())
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if code, out, errs := sh.run("process_list"); code != 0 {
				t.Errorf("process_list: exit %d: %s%s", code, out, errs)
			}
		}()
	}
	wg.Wait()
	pid := sh.daemonPid()
	var daemons []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, _ := os.ReadFile(p)
		if args := strings.Split(string(b), "\x00"); len(args) > 2 && args[0] == triageBin && args[1] == "serve" && strings.Contains(string(b), sh.env[0][len("XDG_RUNTIME_DIR="):]) {
			daemons = append(daemons, p)
		}
	}
	if len(daemons) != 1 {
		t.Errorf("%d daemons running (%v), want 1 (pid %d)", len(daemons), daemons, pid)
	}
}

// A daemon that ends, stopped or idle, leaves nothing of itself in the
// runtime directory: its socket, pid, lock and log files all go.
func TestDaemonLeavesNothing(t *testing.T) {
	for _, how := range []string{"stopped", "idle"} {
		t.Run(how, func(t *testing.T) {
			sh := newShell(t, t.TempDir())
			if how == "idle" {
				sh.env = append(sh.env, "TRIAGE_DAEMON_IDLE=300ms")
			}
			sh.call(0, "process_list")
			pid := sh.daemonPid()
			if how == "stopped" {
				sh.call(0, "daemon", "stop")
			}
			for start := time.Now(); !processGone(pid); runtime.Gosched() {
				if time.Since(start) > 30*time.Second {
					t.Fatalf("the daemon (pid %d) has not ended", pid)
				}
			}
			dir := filepath.Join(sh.env[0][len("XDG_RUNTIME_DIR="):], "triage")
			if left, err := os.ReadDir(dir); err != nil || len(left) != 0 {
				t.Errorf("the %s daemon left %v in %s (%v)", how, left, dir, err)
			}
		})
	}
}

// processGone says pid has exited and been reaped.
func processGone(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err != nil
}

// Daemons are per directory and configuration, and their scope shows:
// `daemon status --all` lists the daemons of two directories with their
// directories, a process started in one is pointed to by a listing and a
// call of its id in the other, ids do not repeat across them, a relative project_dir is stored
// absolute, and `daemon stop --all` ends them all.
func TestDaemonScopeAcrossDirectories(t *testing.T) {
	dirA, dirB := realDir(t), realDir(t)
	a := newShell(t, dirA)
	b := &shell{t: t, dir: dirB, env: a.env}
	idA := startedID(t, a.call(0, "process_start", "--program", "sleep", "--args", "60"))
	idB := startedID(t, b.call(0, "process_start", "--program", "sleep", "--args", "60"))
	if idA == idB {
		t.Errorf("both daemons gave id %s", idA)
	}
	if out := b.call(0, "process_list"); !strings.Contains(out, dirB) || !strings.Contains(out, dirA) || !strings.Contains(out, idA) {
		t.Errorf("process_list in %s names neither its directory nor %s's %s:\n%s", dirB, dirA, idA, out)
	}
	if out := b.call(2, "process_output", "--id", idA); !strings.Contains(out, idA+" is held by the daemon of "+dirA) {
		t.Errorf("process_output --id %s in %s does not point to %s:\n%s", idA, dirB, dirA, out)
	}
	if out := b.call(0, "session_set_defaults", "--project_dir", "."); !strings.Contains(out, "project_dir: "+dirB+"\n") {
		t.Errorf("session_set_defaults --project_dir . did not store %s:\n%s", dirB, out)
	}
	out := a.call(0, "daemon", "status", "--all")
	if !strings.Contains(out, "DAEMONS: 2") || !strings.Contains(out, dirA+"  pid") || !strings.Contains(out, dirB+"  pid") || !strings.Contains(out, idA) || !strings.Contains(out, idB) {
		t.Fatalf("daemon status --all:\n%s", out)
	}
	pids := regexp.MustCompile(`pid (\d+)`).FindAllStringSubmatch(out, -1)
	if out := b.call(0, "daemon", "stop", "--all"); strings.Count(out, "daemon stopped") != 2 {
		t.Errorf("daemon stop --all:\n%s", out)
	}
	for _, m := range pids {
		if pid, _ := strconv.Atoi(m[1]); !processGone(pid) && !gone(pid) {
			t.Errorf("daemon pid %d still running after stop --all", pid)
		}
	}
	if out := a.call(0, "daemon", "status", "--all"); !strings.Contains(out, "DAEMONS: 0") {
		t.Errorf("after stop --all:\n%s", out)
	}
}

// realDir is a new directory as its daemon names it (symbolic links
// resolved, as the working directory is).
func realDir(t *testing.T) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// startedID is the id a process_start answer gives.
func startedID(t *testing.T, out string) string {
	m := regexp.MustCompile(`STARTED (p\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("process_start: %s", out)
	}
	return m[1]
}

// gone says pid has exited, reaped or not (a zombie of a daemon whose
// parent, the CLI that started it, has ended is reaped by init).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err != nil || strings.Contains(string(b), ") Z ")
}
