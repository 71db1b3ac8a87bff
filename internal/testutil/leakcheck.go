package testutil

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// leakEnv marks every process a test binary starts: children inherit the
// environment (spawn applies overrides on top of it), so a process that
// carries this binary's token descends from it, even after its parent died
// and it was reparented to init.
const leakEnv = "TRIAGE_TEST_LEAKCHECK"

// leakGrace is how long Main waits for processes already being killed (a
// SIGKILL in flight, a group reaped in the background) before calling them
// leaked.
const leakGrace = 5 * time.Second

// Main runs a package's tests and fails the package when they leave
// something behind: a process they started (directly or through triage's
// own code) still alive, or a triage-* entry in the temporary directory.
// Call it from TestMain as os.Exit(testutil.Main(m)).
//
// Each package gets a private temporary directory (TMPDIR, and
// XDG_RUNTIME_DIR for the CLI's daemon), so that what it
// leaves is told apart from what packages running beside it create; leaked
// processes are killed after they are reported, so that none survives the
// run. cleanups run after the tests and before the checks (removing what
// a package built once for all its tests), after them those AtExit
// registered. A test host (scripts/test-host.sh) left up by the package's
// tests fails it too.
func Main(m *testing.M, cleanups ...func()) int {
	token := rand.Text()
	tmp, err := os.MkdirTemp("", "tpkg-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "leak check:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	os.Setenv(leakEnv, token)
	os.Setenv("TMPDIR", tmp)
	// triage calls run in-process unless a test of the CLI's daemon says
	// otherwise (t.Setenv("TRIAGE_DAEMON", "")); a daemon a test starts
	// lives in the package's own directory.
	os.Setenv("TRIAGE_DAEMON", "off")
	os.Setenv("XDG_RUNTIME_DIR", tmp)

	code := m.Run()
	for _, c := range cleanups {
		c()
	}
	for _, c := range atExit() {
		c()
	}
	if left := leftTestHosts(tmp); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: the tests left %d test host(s) up (a network namespace and its sshd; scripts/test-host.sh sweep removes them):\n", len(left))
		for _, h := range left {
			fmt.Fprintf(os.Stderr, "  %s\n", h)
		}
		code = 1
	}
	if leaked := leakedProcesses(token, leakGrace); len(leaked) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: the tests left %d process(es) running (killed now):\n", len(leaked))
		for _, p := range leaked {
			fmt.Fprintf(os.Stderr, "  pid %d: %s\n", p.pid, p.cmdline)
			syscall.Kill(p.pid, syscall.SIGKILL)
		}
		code = 1
	}
	if left := leftTempEntries(tmp); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: the tests left %d triage-* temporary entries:\n", len(left))
		for _, e := range left {
			fmt.Fprintf(os.Stderr, "  %s\n", e)
		}
		code = 1
	}
	return code
}

type leakedProcess struct {
	pid     int
	cmdline string
}

// leakedProcesses returns the live processes, other than this one, whose
// environment carries token, waiting up to grace for them to go.
func leakedProcesses(token string, grace time.Duration) []leakedProcess {
	deadline := time.Now().Add(grace)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		found := processesWithEnv(leakEnv + "=" + token)
		if len(found) == 0 || time.Now().After(deadline) {
			return found
		}
		<-tick.C
	}
}

// processesWithEnv scans /proc for live processes whose initial environment
// holds the entry kv. Without procfs (macOS) it finds nothing.
func processesWithEnv(kv string) []leakedProcess {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	want := []byte(kv)
	var out []leakedProcess
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self || !ProcessAlive(pid) {
			continue
		}
		env, err := readProcFile(pid, "environ")
		if err != nil || !hasEntry(env, want) {
			continue
		}
		cmd, _ := readProcFile(pid, "cmdline")
		out = append(out, leakedProcess{pid: pid, cmdline: strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))})
	}
	return out
}

func readProcFile(pid int, name string) ([]byte, error) {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 1<<20))
}

// hasEntry reports whether the NUL-separated list holds entry exactly.
func hasEntry(list, entry []byte) bool {
	for len(list) > 0 {
		var e []byte
		e, list, _ = bytes.Cut(list, []byte{0})
		if bytes.Equal(e, entry) {
			return true
		}
	}
	return false
}

// leftTempEntries lists the triage-* entries under dir, where triage's code
// names what it creates in the temporary directory.
func leftTempEntries(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "triage-") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out
}

// OwnProcesses returns "pid cmdline" for each live process this test binary
// started, directly or not, under Main (none without Main). Unlike a search
// by name, it never counts a process another test binary started.
func OwnProcesses() []string {
	token := os.Getenv(leakEnv)
	if token == "" {
		return nil
	}
	var out []string
	for _, p := range processesWithEnv(leakEnv + "=" + token) {
		out = append(out, fmt.Sprintf("%d %s", p.pid, p.cmdline))
	}
	return out
}

// MainBuilding is Main for packages that test a built binary: it builds the
// Go command in cmdDir (relative to the package) once, sets *bin to its path
// for the tests, and removes it afterwards. A failed build fails the package.
func MainBuilding(m *testing.M, cmdDir string, bin *string, cleanups ...func()) int {
	dir, err := os.MkdirTemp("", "binary-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	*bin = filepath.Join(dir, filepath.Base(cmdDir))
	build := exec.Command("go", "build", "-o", *bin, cmdDir)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building %s: %v\n", cmdDir, err)
		return 1
	}
	return Main(m, cleanups...)
}
