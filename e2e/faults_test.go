package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// Fault injection through the real server: each test breaks one real part
// and checks that the call fails clearly, that nothing stored before is lost
// and that the server keeps serving. TestFaults* log "FAULT" lines that
// scripts/soak.sh counts for docs/RELIABILITY.md.

func faultf(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Logf("FAULT "+format, args...)
}

// smallDisk returns a directory on a real 4 MiB filesystem (tmpfs) and how
// the server must be started to meet a full disk there. Without mount
// rights it falls back to RLIMIT_FSIZE (prlimit): writes past the limit fail
// with EFBIG, which Go's runtime receives instead of SIGXFSZ.
func smallDisk(t *testing.T) (dir string, wrap []string) {
	dir = t.TempDir()
	mnt := filepath.Join(dir, "small")
	os.Mkdir(mnt, 0o755)
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt).Run(); err == nil {
		t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
		return mnt, nil
	}
	p := need(t, "prlimit", "apt-get install util-linux")
	return mnt, []string{p, "--fsize=4194304", "--"}
}

// TestFaultStoreDiskFull: an output that does not fit on the store's disk
// fails clearly and is not left listed running; the outputs stored before
// stay readable, after a restart too, and the server goes on answering.
func TestFaultStoreDiskFull(t *testing.T) {
	mnt, wrap := smallDisk(t)
	store := filepath.Join(mnt, "out.db")
	s := startServer(t, t.TempDir(), store, wrap)
	_, sc := s.mustCall("run", map[string]any{"program": "seq", "args": []string{"1", "1000"}})
	kept := sc["output_id"].(string)

	// About 39 MB of output for a 4 MiB disk.
	text, isErr, sc := s.call("run", map[string]any{"program": "seq", "args": []string{"1", "5000000"}})
	faultf(t, "store disk full during a 39 MB output")
	if i := strings.Index(text, "OUTPUT NOT STORED WHOLE"); i < 0 && !isErr {
		t.Errorf("a run whose output did not fit reported no failure: %.300s", text)
	} else if !strings.Contains(text[max(i, 0):], "disk is full") {
		t.Errorf("the failure does not say the disk is full: %.300s", text[max(i, 0):])
	} else {
		t.Logf("result: %s", text[max(i, 0):])
	}
	checked, lost := 0, 0
	checkKept := func(s *server) {
		t.Helper()
		checked++
		text, _ := s.mustCall("output_get", map[string]any{"output_id": kept, "offset": 998, "limit": 2})
		if !strings.Contains(text, "999") || !strings.Contains(text, "1000") {
			lost++
			t.Errorf("the output stored before the disk filled: %.300s", text)
		}
	}
	checkKept(s)
	// The run that did not fit has ended: it is not listed running (its
	// row's end may not have fitted either).
	if id, _ := sc["output_id"].(string); id != "" {
		_, list := s.mustCall("output_list", map[string]any{"limit": 5})
		outputs, _ := list["outputs"].([]any)
		for _, o := range outputs {
			if o, _ := o.(map[string]any); o["id"] == id && o["status"] == "running" {
				t.Errorf("the run whose output did not fit is listed running: %v", o)
			}
		}
	}
	s.mustCall("session_show_defaults", map[string]any{})
	s.stop()
	s = startServer(t, t.TempDir(), store, wrap)
	checkKept(s)
	figure(t, "disk full: stored outputs checked=%d lost=%d", checked, lost)
	if sc == nil {
		t.Error("no structured result for the cut output")
	}
}

// TestFaultServerKilledMidWrite: the server is SIGKILLed while a background
// process streams into the store; a restarted server reads every output
// stored before, whole, and the interrupted one up to where it got.
func TestFaultServerKilledMidWrite(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store", "out.db")
	s := startServer(t, dir, store, nil)
	_, sc := s.mustCall("run", map[string]any{"program": "seq", "args": []string{"1", "50000"}})
	done := sc["output_id"].(string)

	_, sc = s.mustCall("process_start", map[string]any{"program": "sh", "args": []string{"-c",
		`i=0; while [ $i -lt 100000 ]; do echo "line $i"; i=$((i+1)); if [ $((i % 100)) = 0 ]; then sleep 0.05; fi; done`}})
	pid := int(sc["pid"].(float64))
	jobID, _ := sc["id"].(string)
	jobOut, _ := sc["output_id"].(string)
	// Wait until the process has written a good part of its output.
	deadline := time.Now().Add(30 * time.Second)
	for {
		text, _ := s.mustCall("process_output", map[string]any{"id": jobID, "cursor": 500, "limit": 1, "wait_s": 1})
		if strings.Contains(text, "line 500") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background process never reached line 500: %.300s", text)
		}
	}
	s.kill()
	faultf(t, "server SIGKILLed while an output was being written")
	// The kernel kills a direct child whose server died (parent-death signal).
	if !testutil.WaitGone(pid, 10*time.Second) {
		t.Errorf("the background process %d outlived the SIGKILLed server", pid)
		syscall.Kill(-pid, syscall.SIGKILL)
		testutil.WaitGone(pid, 10*time.Second)
	}

	s = startServer(t, dir, store, nil)
	lost := 0
	text, _ := s.mustCall("output_get", map[string]any{"output_id": done, "offset": 49999, "limit": 1})
	if !strings.Contains(text, "50000") {
		lost++
		t.Errorf("finished output after the restart: %.300s", text)
	}
	text, _ = s.mustCall("output_list", map[string]any{})
	if !regexp.MustCompile(jobOut + `\s.*\s(\d{3,}) lines .* incomplete`).MatchString(text) {
		t.Errorf("the interrupted output is not listed as incomplete with its lines:\n%s", text)
	}
	text, _ = s.mustCall("output_get", map[string]any{"output_id": jobOut, "offset": 0, "limit": 1})
	if !strings.Contains(text, "line 0") {
		lost++
		t.Errorf("the interrupted output's first line: %.300s", text)
	}
	figure(t, "server SIGKILL: stored outputs checked=2 lost=%d", lost)
}

// TestFaultDebugAdapterKilled: the debug adapter is SIGKILLed in the middle
// of a session; the next call on it fails saying so, the debuggee is not
// left behind, and the server still runs programs and opens new sessions.
func TestFaultDebugAdapterKilled(t *testing.T) {
	needLLDBAdapter(t)
	s := startServer(t, t.TempDir(), ":memory:", nil)
	target := crashers.Build(t, "sleeper")
	_, sc := s.mustCall("debug_attach", map[string]any{"program": target, "args": []string{"600"}, "breakpoints": []string{"main"}})
	state, _ := sc["state"].(map[string]any)
	debuggee, _ := state["pid"].(float64)
	adapters := pgrep(t, s.pid, lldbAdapterProcess)
	if len(adapters) != 1 || debuggee == 0 {
		t.Fatalf("adapters %v, debuggee %v", adapters, debuggee)
	}
	syscall.Kill(adapters[0], syscall.SIGKILL)
	faultf(t, "debug adapter SIGKILLed mid-session")

	text, isErr, _ := s.call("debug_stack", map[string]any{})
	if !isErr {
		t.Errorf("debug_stack on a session whose adapter died succeeded: %.300s", text)
	}
	if l := strings.ToLower(text); !strings.Contains(l, "adapter") && !strings.Contains(l, "dead") && !strings.Contains(l, "died") {
		t.Errorf("the failure does not say the debugger died: %.300s", text)
	}
	if !testutil.WaitGone(int(debuggee), 15*time.Second) {
		t.Errorf("debuggee %d left running after its adapter died", int(debuggee))
	}
	if text, _ := s.mustCall("run", map[string]any{"program": "true"}); !strings.HasPrefix(text, "SUCCEEDED") {
		t.Errorf("run after the adapter died: %.200s", text)
	}
	_, sc = s.mustCall("debug_attach", map[string]any{"program": target, "args": []string{"600"}, "breakpoints": []string{"main"}})
	if st, _ := sc["state"].(map[string]any); st["status"] != "stopped" {
		t.Errorf("a new session after the adapter died: %v", sc)
	}
}

// TestFaultDumpEngines: on a real kernel vmcore, crash is SIGSTOPped in the
// middle of a command (the command times out, the engine is killed and the
// next command gets a new one), and drgn raises in the middle of its output
// (the output so far is kept and the error reported).
func TestFaultDumpEngines(t *testing.T) {
	need(t, "crash", "apt-get install crash")
	need(t, "drgn", "apt-get install python3-drgn")
	vm := vmcoreFiles(t)
	s := startServer(t, t.TempDir(), ":memory:", nil)
	s.mustCall("dump_open", map[string]any{"vmcore": vm[0], "vmlinux": vm[1]})
	if text, _ := s.mustCall("dump_command", map[string]any{"command": "crash: sys"}); !strings.Contains(text, "RELEASE") {
		t.Fatalf("crash sys: %.300s", text)
	}
	engines := pgrep(t, s.pid, "crash")
	if len(engines) != 1 {
		t.Fatalf("crash engines: %v", engines)
	}
	syscall.Kill(engines[0], syscall.SIGSTOP)
	faultf(t, "crash SIGSTOPped mid-command")
	start := time.Now()
	text, isErr, _ := s.call("dump_command", map[string]any{"command": "crash: ps", "timeout_s": 3, "force": true})
	if !isErr || !strings.Contains(strings.ToLower(text), "time") {
		t.Errorf("command on a stopped crash: error %v: %.300s", isErr, text)
	}
	// The call includes the kill and, under load, a slow restart of crash.
	if d := time.Since(start); d > 150*time.Second {
		t.Errorf("the timed-out command took %v", d)
	} else {
		t.Logf("the timed-out command returned after %v", d.Round(time.Second))
	}
	if !testutil.WaitGone(engines[0], 15*time.Second) {
		t.Errorf("the stopped crash (pid %d) was not killed", engines[0])
		syscall.Kill(engines[0], syscall.SIGKILL)
	}
	if text, _ := s.mustCall("dump_command", map[string]any{"command": "crash: sys", "force": true}); !strings.Contains(text, "RELEASE") {
		t.Errorf("crash after the restart: %.300s", text)
	}

	text, isErr, _ = s.call("dump_command", map[string]any{"engine": "drgn",
		"command": "print('partial-one')\nprint('partial-two')\nraise RuntimeError('injected fault')"})
	faultf(t, "drgn raised mid-output")
	if !strings.Contains(text, "partial-one") || !strings.Contains(text, "partial-two") {
		t.Errorf("drgn's output before the exception was lost: %.500s", text)
	}
	if !strings.Contains(text, "injected fault") {
		t.Errorf("drgn's exception not reported: %.500s (error %v)", text, isErr)
	}
	if text, _ := s.mustCall("dump_command", map[string]any{"engine": "drgn", "command": "print(6*7)"}); !strings.Contains(text, "42") {
		t.Errorf("drgn after the exception: %.300s", text)
	}
}

// vmcoreFiles returns the vmcore and vmlinux made by scripts/make-vmcore.sh.
func vmcoreFiles(t *testing.T) [2]string {
	t.Helper()
	env := map[string]string{"VMCORE": os.Getenv("TRIAGE_VMCORE"), "VMLINUX": os.Getenv("TRIAGE_VMLINUX")}
	if env["VMCORE"] == "" {
		raw, _ := os.ReadFile(filepath.Join(cacheDir(), "vmcore", "vmcore.env"))
		for _, l := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(l, "="); ok {
				env[k] = v
			}
		}
	}
	for _, k := range []string{"VMCORE", "VMLINUX"} {
		if _, err := os.Stat(env[k]); env[k] == "" || err != nil {
			msg := "no kernel vmcore: run scripts/make-vmcore.sh"
			if os.Getenv("CI") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	return [2]string{env["VMCORE"], env["VMLINUX"]}
}

// TestFaultKilledServerSweptAtNextStart: a server SIGKILLed leaves its
// temporary directories (an in-memory store's bodies, the debug sessions'
// directory) behind; the next server to start removes them, and leaves
// alone those of a server still running.
func TestFaultKilledServerSweptAtNextStart(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	env := "TMPDIR=" + tmp
	left := func() []string {
		ents, _ := os.ReadDir(tmp)
		var names []string
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), "triage-") {
				names = append(names, e.Name())
			}
		}
		return names
	}
	s := startServer(t, dir, ":memory:", nil, env)
	s.mustCall("run", map[string]any{"program": "true"})
	s.call("debug_attach", map[string]any{"program": "true"})
	stale := left()
	if len(stale) < 2 {
		t.Fatalf("a server using its store and debugger made %v in TMPDIR, want the store's and the debugger's directories", stale)
	}
	s.kill()
	faultf(t, "server SIGKILLed with %d temporary directories", len(stale))

	live := startServer(t, dir, ":memory:", nil, env)
	live.mustCall("run", map[string]any{"program": "true"})
	startServer(t, dir, ":memory:", nil, env) // sweeps again: the live server's stay
	now := left()
	for _, name := range stale {
		if slices.Contains(now, name) {
			t.Errorf("%s, left by the killed server, is still there after the next start", name)
		}
	}
	if len(now) == 0 {
		t.Errorf("the running server's store directory was swept too")
	}
}
