package run_test

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/testutil/sshhost"
)

// putProject writes a project into the test host's own directory and
// returns its path there (which does not exist on this side).
func putProject(t *testing.T, h *sshhost.Host, name string, files map[string]string) string {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(h.Local(name), rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.RemoveAll(h.Local(name)) })
	dir := path.Join(h.Root, name)
	if _, err := os.Stat(dir); err == nil {
		t.Fatalf("%s exists on this side too: the test would not prove the host's files are used", dir)
	}
	return dir
}

// goCache is this side's Go build cache, which the host's go (the same
// toolchain, on the same machine) may share so that tests need not build
// the standard library again.
func goCache(t *testing.T) map[string]string {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"GOCACHE": strings.TrimSpace(string(out))}
}

// Builds and tests of a project on the test host: planned from the host's
// files, run there, with the verdicts a local run gives.
func TestRemoteBuildTest(t *testing.T) {
	h := sshhost.Get(t)
	c := remoteClient(t, h)

	t.Run("make test that crashes: the remote core's backtrace", func(t *testing.T) {
		dir := putProject(t, h, "mk-crash", nativeprojects.Make())
		r := c.Call("test", map[string]any{"project_dir": dir, "ssh_host": h.Name})
		var out buildTestOutput
		r.Decode(t, &out)
		if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "CRASHED") || !strings.Contains(r.FirstLine(), "name_length") {
			t.Fatalf("verdict %q (%s)\n%s", r.FirstLine(), r.Outcome, r.Text)
		}
		cr := out.Crash
		if cr == nil || !strings.HasPrefix(cr.Core, dir+"/") || cr.Frame == nil || cr.Frame.Function != "name_length" || cr.Frame.Line != 4 || cr.Program != dir+"/crasher" {
			t.Fatalf("crash %+v", cr)
		}
		if !strings.Contains(r.Text, `"ssh_host":"`+h.Name+`"`) || !strings.Contains(r.Text, "dump_open") {
			t.Errorf("the dump_open hint does not name the host:\n%s", r.Text)
		}
		if out.SSHHost != h.Name || out.Steps[0].Dir != dir {
			t.Errorf("ssh_host %q, step dir %q", out.SSHHost, out.Steps[0].Dir)
		}
	})
	t.Run("compile error", func(t *testing.T) {
		dir := putProject(t, h, "mk-broken", map[string]string{
			"Makefile": "prog: prog.c\n\t$(CC) -o prog prog.c\n",
			"prog.c":   "int main(void) {\n\treturn undefined_thing;\n}\n",
		})
		r := c.Call("build", map[string]any{"project_dir": dir, "ssh_host": h.Name})
		if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "BUILD FAILED") || !strings.Contains(r.FirstLine(), "prog.c:2") {
			t.Fatalf("verdict %q (%s)\n%s", r.FirstLine(), r.Outcome, r.Text)
		}
	})
	goDir := putProject(t, h, "gomod", map[string]string{"go.mod": goModule["go.mod"], "pass/pass_test.go": goModule["pass/pass_test.go"], "fail/fail_test.go": goModule["fail/fail_test.go"]})
	t.Run("go test that fails", func(t *testing.T) {
		r := c.Call("test", map[string]any{"project_dir": goDir, "ssh_host": h.Name, "env": goCache(t)})
		if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "TESTS FAILED") || !strings.Contains(r.Text, "TestWrong") || !strings.Contains(r.Text, "fail_test.go:9") {
			t.Fatalf("verdict %q (%s)\n%s", r.FirstLine(), r.Outcome, r.Text)
		}
	})
	t.Run("go test that passes, ssh_host from the session defaults", func(t *testing.T) {
		c.Call("session_set_defaults", map[string]any{"ssh_host": h.Name})
		defer c.Call("session_clear_defaults", map[string]any{"keys": []string{"ssh_host"}})
		r := c.Call("test", map[string]any{"project_dir": goDir, "targets": []string{"./pass"}, "env": goCache(t)})
		if r.Outcome != "ok" || r.FirstLine() != "TESTS PASSED: 1 passed" {
			t.Fatalf("verdict %q (%s)\n%s", r.FirstLine(), r.Outcome, r.Text)
		}
	})
	t.Run("a project_dir the host lacks", func(t *testing.T) {
		r := c.Call("build", map[string]any{"project_dir": h.Root + "/nosuch", "ssh_host": h.Name})
		if r.Outcome != "usage_error" || !strings.Contains(r.Text, "on "+h.Name) || !strings.Contains(r.Text, "no such directory") {
			t.Errorf("missing project: %s\n%s", r.Outcome, r.Text)
		}
	})
	t.Run("connection killed mid-test, then recovery", func(t *testing.T) {
		started := "test-started"
		dir := putProject(t, h, "mk-slow", map[string]string{"Makefile": "test:\n\ttouch " + h.Root + "/" + started + "\n\tsleep 120\n"})
		defer os.Remove(h.Local(started))
		var res mcptest.Result
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			res = c.Call("test", map[string]any{"project_dir": dir, "ssh_host": h.Name})
		}()
		h.WaitFile(t, started)
		syscall.Kill(-h.Master(t), syscall.SIGKILL)
		wg.Wait()
		if res.Outcome == "ok" || !strings.HasPrefix(res.FirstLine(), "INTERRUPTED") || !strings.Contains(res.Text, "ssh connection to "+h.Name+" was lost") {
			t.Fatalf("a test through a killed connection (%s):\n%s", res.Outcome, res.Text)
		}
		r := c.Call("build", map[string]any{"project_dir": dir, "ssh_host": h.Name, "command": []string{"true"}})
		if r.Outcome != "ok" {
			t.Errorf("after reconnecting:\n%s", r.Text)
		}
	})
}

// An automake project on the host: a sanitizer's report that only the
// test's own log holds (test_asan.log, on the host) is read there.
func TestRemoteAutomakeTestLogs(t *testing.T) {
	nativeprojects.Need(t, "make", "cc", "autoreconf", "automake")
	h := sshhost.Get(t)
	c := remoteClient(t, h)
	dir := putProject(t, h, "am-asan", nativeprojects.AutomakeASan())
	if r := c.Call("build", map[string]any{"project_dir": dir, "ssh_host": h.Name, "command": []string{"sh", "-c", "autoreconf -i && ./configure CFLAGS='-g -O0'"}}); r.Outcome != "ok" {
		t.Fatalf("configuring on the host (%s):\n%s", r.Outcome, r.Text)
	}
	r := c.Call("test", map[string]any{"project_dir": dir, "ssh_host": h.Name})
	if !strings.HasPrefix(r.FirstLine(), "CRASHED") || !strings.Contains(r.FirstLine(), "AddressSanitizer: heap-buffer-overflow in fill at asan.c:4") {
		t.Fatalf("verdict %q (%s)\n%s", r.FirstLine(), r.Outcome, r.Text)
	}
	if strings.Contains(r.Text, "not read") {
		t.Errorf("the answer says logs were not read:\n%s", r.Text)
	}
}

// A cargo test binary that a test ends unnamed on the host: its unreported
// tests are rerun there, one at a time, to name it, as a local run does.
func TestRemoteCargoRerun(t *testing.T) {
	nativeprojects.Need(t, "cargo")
	h := sshhost.Get(t)
	c := remoteClient(t, h)
	dir := putProject(t, h, "cargo-exiting", nativeprojects.CargoExiting())
	r := c.Call("test", map[string]any{"project_dir": dir, "ssh_host": h.Name, "args": []string{"--", "--test-threads=3"}})
	want := "TESTS FAILED: the run ended before tests::b_exits finished (unittests src/lib.rs: exit 0"
	if !strings.HasPrefix(r.FirstLine(), want) {
		t.Fatalf("verdict %q, want %q…\n%s", r.FirstLine(), want, r.Text)
	}
	if strings.Contains(r.Text, "not rerun") {
		t.Errorf("the answer says the binary was not rerun:\n%s", r.Text)
	}
}

// A CMake project on the host: configured, built and tested there, CTest's
// report read there, the crashed test named.
func TestRemoteCMake(t *testing.T) {
	h := sshhost.Get(t)
	c := remoteClient(t, h)
	dir := putProject(t, h, "cm", nativeprojects.CMake())
	r := c.Call("test", map[string]any{"project_dir": dir, "ssh_host": h.Name})
	var out buildTestOutput
	r.Decode(t, &out)
	// t_segv's core lands in build/tests, t_abort's in build (their working
	// directories): the host is searched as deep as a local run searches,
	// and the verdict is the local one (TestCTestCrashesInSubdirectory).
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "CRASHED: test binary SIGSEGV in name_length at lib.c:4 while running t_segv") {
		t.Fatalf("verdict %q (%s)\n%s", r.FirstLine(), r.Outcome, r.Text)
	}
	if cr := out.Crash; cr == nil || !strings.HasPrefix(cr.Core, dir+"/") || !strings.Contains(cr.Core, "/tests/") || !strings.HasSuffix(cr.Program, "/t_segv") {
		t.Errorf("crash %+v", out.Crash)
	}
	if out.Tests == nil || out.Tests.Totals.Total != 4 {
		t.Errorf("tests %+v", out.Tests)
	}
	if _, err := os.Stat(filepath.Join(h.Local("cm"), ".triage/build/debug/CTestCustom.cmake")); err != nil {
		t.Errorf("the step's file was not written on the host: %v", err)
	}
}
