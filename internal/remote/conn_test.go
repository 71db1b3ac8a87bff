package remote_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/testutil/sshhost"
)

func TestConnRunsOnTheHost(t *testing.T) {
	h, pool, c := testPool(t)
	ctx := context.Background()
	// A file only the remote has, under a hostile name.
	name := "it's a $(file)"
	local := filepath.Join(t.TempDir(), "f")
	os.WriteFile(local, []byte("remote\n"), 0o644)
	remotePath := h.Put(t, local, name)
	if _, err := os.Stat(remotePath); err == nil {
		t.Fatalf("%s exists on this side too: the test host's root is not its own", remotePath)
	}
	out, err := c.Run(ctx, []string{"cat", remotePath}, 10*time.Second)
	if err != nil || out != "remote\n" {
		t.Fatalf("cat %q: %q, %v", remotePath, out, err)
	}
	// The same connection serves the next command.
	if again, err := pool.Conn(ctx, h.Name); err != nil || again != c {
		t.Errorf("second Conn: %p, %v (first %p)", again, err, c)
	}
	_, err = c.Run(ctx, []string{"cat", h.Root + "/missing"}, 10*time.Second)
	var ee *remote.ExitError
	if !errors.As(err, &ee) || !strings.Contains(ee.Stderr, "No such file") {
		t.Errorf("missing file: %v", err)
	}
}

// A killed master is a lost connection, and the next Conn reconnects.
func TestConnReconnectsAfterTheMasterDies(t *testing.T) {
	h, pool, c := testPool(t)
	ctx := context.Background()
	syscall.Kill(-c.Pid(), syscall.SIGKILL)
	c.Wait()
	if _, err := c.Run(ctx, []string{"echo", "ran"}, 20*time.Second); !errors.Is(err, remote.ErrLost) {
		t.Fatalf("a command through a killed master: %v", err)
	}
	c2, err := pool.Conn(ctx, h.Name)
	if err != nil || c2 == c || !c2.Alive() {
		t.Fatalf("reconnect: %v", err)
	}
	if out, err := c2.Run(ctx, []string{"echo", "back"}, 10*time.Second); err != nil || out != "back\n" {
		t.Errorf("after reconnect: %q, %v", out, err)
	}
}

// A host key other than the pinned one is refused, saying so.
func TestHostKeyMismatchRefused(t *testing.T) {
	h := sshhost.Get(t)
	dir := t.TempDir()
	cfg, err := os.ReadFile(h.Config)
	if err != nil {
		t.Fatal(err)
	}
	// known_hosts pinning another key for the host.
	other := filepath.Join(dir, "known_hosts")
	os.WriteFile(other, []byte(h.Name+","+h.Addr+" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n"), 0o600)
	lines := strings.Split(string(cfg), "\n")
	for i, l := range lines {
		if strings.Contains(l, "UserKnownHostsFile") {
			lines[i] = "  UserKnownHostsFile " + other
		}
	}
	bad := filepath.Join(dir, "ssh_config")
	os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o600)
	pool := remote.NewPool(remote.Options{Config: bad})
	t.Cleanup(func() { pool.Close() })
	_, err = pool.Conn(context.Background(), h.Name)
	if !errors.Is(err, remote.ErrConnect) || !strings.Contains(err.Error(), "IDENTIFICATION HAS CHANGED") || !strings.Contains(err.Error(), "verify the host's key") {
		t.Errorf("mismatched host key: %v", err)
	}
}

// Programs and files are looked up on the host, never here.
func TestLookupsOnTheHost(t *testing.T) {
	h, c := testConn(t)
	ctx := context.Background()
	if p, err := c.LookPath(ctx, "triage-no-such-program", "sh"); err != nil || !strings.HasSuffix(p, "/sh") {
		t.Errorf("LookPath sh: %q, %v", p, err)
	}
	if _, err := c.LookPath(ctx, "triage-no-such-program"); !errors.Is(err, remote.ErrNotOnHost) || !strings.Contains(err.Error(), "on "+h.Name+": triage-no-such-program not in PATH") {
		t.Errorf("LookPath of a missing program: %v", err)
	}
	if _, err := c.LookPath(ctx, "cd"); !errors.Is(err, remote.ErrNotOnHost) || !strings.Contains(err.Error(), "no program") {
		t.Errorf("LookPath of a shell builtin: %v", err)
	}
	local := filepath.Join(t.TempDir(), "data")
	os.WriteFile(local, []byte("x"), 0o644)
	file := h.Put(t, local, "lookup-data")
	if _, err := os.Stat(file); err == nil {
		t.Fatalf("%s exists on this side too", file)
	}
	if p, err := c.Program(ctx, "sh", file); err != nil || !strings.HasPrefix(p, "/") {
		t.Errorf("Program sh reading %s: %q, %v", file, p, err)
	}
	err := c.CheckFiles(ctx, file, h.Root+"/missing")
	if !errors.Is(err, remote.ErrNotOnHost) || !strings.Contains(err.Error(), "on "+h.Name+": ") || !strings.Contains(err.Error(), "No such file") {
		t.Errorf("CheckFiles with a missing file: %v", err)
	}
	if err := c.CheckFiles(ctx, h.Root); err == nil || errors.Is(err, remote.ErrNotOnHost) || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("CheckFiles of a directory: %v", err)
	}
}

// A process on the host is found and killed there.
func TestProcessOnTheHost(t *testing.T) {
	_, c := testConn(t)
	ctx := context.Background()
	out, err := c.Run(ctx, []string{"sh", "-c", "sleep 600 >/dev/null 2>&1 </dev/null & echo $!"}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("pid %q: %v", out, err)
	}
	if ok, err := c.ProcessExists(ctx, pid); !ok || err != nil {
		t.Errorf("ProcessExists(%d) of a sleep on the host: %v, %v", pid, ok, err)
	}
	if err := c.Kill(ctx, pid); err != nil {
		t.Errorf("Kill: %v", err)
	}
	// The shell that started it is gone: init reaps it, and kill -0 sees
	// it until then.
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok, err := c.ProcessExists(ctx, pid)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d still there after Kill", pid)
		}
	}
	if err := c.Kill(ctx, pid); err != nil {
		t.Errorf("Kill of a process that is gone: %v", err)
	}
}
