// Package sshhost gives tests a second host reached over ssh: the sshd in a
// network namespace that scripts/test-host.sh brings up, once per test
// package, with its own root directory. Bringing it up registers Down with
// testutil.AtExit, so the host (sshd and everything it runs) is gone
// before testutil.Main's checks, which fail a package that left one up.
package sshhost

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil"
)

// Host is the test host as scripts/test-host.sh describes it.
type Host struct {
	// Name is the ssh host name (an alias of Config).
	Name string
	// Config is the ssh client configuration: the client key, known_hosts
	// pinning the host key, strict host key checking. Tests hand it to
	// triage as TRIAGE_SSH_CONFIG.
	Config string
	// Addr and NetNS are the host's address and network namespace.
	Addr, NetNS string
	// Root is the remote path of the host's own directory; files put
	// there are not at that path on this side.
	Root      string
	localRoot string
	dir       string
}

var (
	mu   sync.Mutex
	up   *Host
	dir  string
	fail error
)

// Get brings the package's host up on its first call and returns it. It
// skips the test when the host cannot be made (not root, no sshd), except
// in CI, where that fails.
func Get(t testing.TB) *Host {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if up == nil && fail == nil {
		testutil.AtExit(Down) // a host half made by a failed start goes too
		up, fail = start()
	}
	if fail != nil {
		msg := fmt.Sprintf("no remote test host: %v", fail)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return up
}

func start() (*Host, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("scripts/test-host.sh needs root (network namespaces)")
	}
	if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
		return nil, errors.New("sshd missing: scripts/install-deps.sh installs openssh-server")
	}
	script, err := scriptPath()
	if err != nil {
		return nil, err
	}
	if dir, err = os.MkdirTemp("", "sshhost-"); err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd := exec.Command(script, "up", dir)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s up: %v: %s", script, err, stderr.String())
	}
	return parse(out, dir), nil
}

func parse(out []byte, dir string) *Host {
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	return &Host{Name: env["TEST_HOST"], Config: env["TRIAGE_SSH_CONFIG"], Addr: env["TEST_HOST_ADDR"],
		NetNS: env["TEST_HOST_NETNS"], Root: env["TEST_HOST_ROOT"], localRoot: env["TEST_HOST_LOCAL_ROOT"], dir: dir}
}

// scriptPath finds scripts/test-host.sh above the working directory.
func scriptPath() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "scripts", "test-host.sh"), nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", errors.New("scripts/test-host.sh: no go.mod above the working directory")
		}
		d = parent
	}
}

// Down stops the package's host (sshd and every process in its namespace)
// and removes its files. For testutil.Main's cleanups.
func Down() {
	mu.Lock()
	defer mu.Unlock()
	if dir == "" {
		return
	}
	if script, err := scriptPath(); err == nil {
		if out, err := exec.Command(script, "down", dir).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "test host down: %v: %s\n", err, out)
		}
	}
	os.RemoveAll(dir)
	up, dir = nil, ""
}

// Put copies the local file into the host's root under name and returns
// its remote path.
func (h *Host) Put(t testing.TB, local, name string) string {
	t.Helper()
	dst := filepath.Join(h.localRoot, name)
	if _, err := os.Stat(dst); err == nil {
		return path.Join(h.Root, name)
	}
	if err := copyFile(local, dst); err != nil {
		t.Fatalf("putting %s on the test host: %v", local, err)
	}
	return path.Join(h.Root, name)
}

// Symlink makes name in the host's root a symbolic link to target (a
// name there) and returns its remote path.
func (h *Host) Symlink(t testing.TB, target, name string) string {
	t.Helper()
	if err := os.Symlink(target, filepath.Join(h.localRoot, name)); err != nil && !errors.Is(err, os.ErrExist) {
		t.Fatal(err)
	}
	return path.Join(h.Root, name)
}

// Local is where a file of the host's root is on this side, for a test
// that waits for something the remote wrote.
func (h *Host) Local(name string) string { return filepath.Join(h.localRoot, name) }

// Remove deletes name from the host's root, if it is there.
func (h *Host) Remove(t testing.TB, name string) {
	t.Helper()
	if err := os.Remove(filepath.Join(h.localRoot, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	tmp := dst + ".part"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// Master is the pid of the ssh master triage keeps for this host (found by
// its command line, which names the host's configuration), for a test that
// kills the connection.
func (h *Host) Master(t testing.TB) int {
	t.Helper()
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if bytes.Contains(cmd, []byte("ControlMaster=yes")) && bytes.Contains(cmd, []byte(h.Config)) {
			return pid
		}
	}
	t.Fatal("no ssh master for the test host")
	return 0
}

// WaitFile returns once the remote wrote name in the host's root, failing
// after a minute.
func (h *Host) WaitFile(t testing.TB, name string) {
	t.Helper()
	path := h.Local(name)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear on the test host", name)
		}
		<-tick.C
	}
}

// Processes lists what runs on the host besides its ssh server: the
// processes in its network namespace other than sshd's, the `cat` a
// connection's master keeps running there and a connection's job agent
// and its watchdog, as "PID COMM". A test that ended its remote work
// expects none.
func (h *Host) Processes(t testing.TB) []string {
	t.Helper()
	var ns syscall.Stat_t
	if err := syscall.Stat(filepath.Join("/run/netns", h.NetNS), &ns); err != nil {
		t.Fatalf("the test host's network namespace: %v", err)
	}
	want := fmt.Sprintf("net:[%d]", ns.Ino)
	dirs, _ := os.ReadDir("/proc")
	var out []string
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		if link, err := os.Readlink(filepath.Join("/proc", d.Name(), "ns", "net")); err != nil || link != want {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", d.Name(), "comm"))
		name := strings.TrimSpace(string(comm))
		if err != nil || name == "sshd" || name == "cat" || name == "triage-agent" || name == "triage-watch" {
			continue
		}
		out = append(out, d.Name()+" "+name)
	}
	return out
}

// WaitNothingLeft waits until nothing runs on the host but its sshd and
// the connections' masters and job agents (what a test started there has
// ended: the remote side learns a moment after the local call returned),
// failing after within.
func (h *Host) WaitNothingLeft(t testing.TB, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		left := h.Processes(t)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("left running on the test host: %v", left)
		}
		<-tick.C
	}
}
