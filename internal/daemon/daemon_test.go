package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRuntimeDirIsPrivate(t *testing.T) {
	rt := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", rt)
	p, err := For(Key("/src/app", nil))
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p.Dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("runtime dir %s: %v %v", p.Dir, fi.Mode(), err)
	}
	// A directory others can enter is refused, not used.
	if err := os.Chmod(p.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := For("x"); err == nil || !strings.Contains(err.Error(), "closed to others") {
		t.Errorf("a 0755 runtime dir: %v", err)
	}
}

func TestKey(t *testing.T) {
	a := Key("/src/app", []string{"store=", "config=x"})
	if a != Key("/src/app", []string{"config=x", "store="}) {
		t.Error("the key depends on the order of the settings")
	}
	if a == Key("/src/other", []string{"store=", "config=x"}) || a == Key("/src/app", []string{"store=/tmp/s.db", "config=x"}) {
		t.Error("different directories or settings share a daemon")
	}
}

// A socket file with no daemon behind it is stale; dialing it says no
// daemon runs; a live listener is not stale.
func TestStaleAndListen(t *testing.T) {
	p := pathsIn(t)
	if Stale(p) {
		t.Error("no socket file at all is not stale")
	}
	ln, remove, err := Listen(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p.Socket); fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v", fi.Mode())
	}
	if Stale(p) || ReadPid(p) != os.Getpid() {
		t.Errorf("a live daemon: stale %v, pid %d", Stale(p), ReadPid(p))
	}
	c, err := Dial(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	// Killed without cleaning up: the socket file stays, nobody listens.
	ln.(interface{ SetUnlinkOnClose(bool) }).SetUnlinkOnClose(false)
	ln.Close()
	if !Stale(p) {
		t.Error("a socket nobody listens on is not reported stale")
	}
	if _, err := Dial(context.Background(), p); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Dial a stale socket: %v", err)
	}
	remove()
	if _, err := os.Stat(filepath.Join(p.Dir, "k.sock")); err == nil {
		t.Error("remove left the socket")
	}
}

// A runtime directory so deep that the socket path would not fit is
// refused with what to do, not found out when the daemon fails to bind.
func TestSocketPathTooLong(t *testing.T) {
	deep := filepath.Join(t.TempDir(), strings.Repeat("d", 100))
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", deep)
	if _, err := For(Key("/x", nil)); err == nil || !strings.Contains(err.Error(), "set XDG_RUNTIME_DIR to a shorter directory") {
		t.Errorf("For with a %d-byte directory: %v", len(deep), err)
	}
}

// A daemon whose recorded process is gone is stale even while something
// still answers on its socket (a killed daemon accepts for a moment as it
// dies): the pid decides.
func TestStaleWhenProcessGone(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	p, err := For("gone")
	if err != nil {
		t.Fatal(err)
	}
	_, remove, err := Listen(p)
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	if Stale(p) {
		t.Fatal("a live daemon is stale")
	}
	// A pid that cannot be a live process: beyond pid_max.
	if err := os.WriteFile(p.Pid, []byte("2147483646\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !Stale(p) {
		t.Error("a daemon whose process is gone is not stale")
	}
}

// A caller waiting for the start lock while a daemon that ended removes
// the lock file (Leave) ends up holding the file now at the path, not the
// removed one, so that a third caller waits for it.
func TestLockFollowsTheRemovedFile(t *testing.T) {
	p := pathsIn(t)
	unlock, err := Lock(p)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p.Lock)
	if err != nil {
		t.Fatal(err)
	}
	ino := fi.Sys().(*syscall.Stat_t).Ino
	got := make(chan func(), 1)
	go func() {
		u, err := Lock(p)
		if err != nil {
			t.Error(err)
		}
		got <- u
	}()
	waitForBlockedFlock(t, ino)
	os.Remove(p.Lock)
	unlock()
	second := <-got
	defer second()
	f, err := os.Open(p.Lock)
	if err != nil {
		t.Fatalf("the waiter holds no lock file at the path: %v", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Errorf("the file at the path is not locked by the waiter: flock %v", err)
	}
}

// waitForBlockedFlock waits until /proc/locks shows a caller blocked on
// the flock of inode ino: the waiter is in flock(2).
func waitForBlockedFlock(t *testing.T, ino uint64) {
	t.Helper()
	want := ":" + strconv.FormatUint(ino, 10) + " "
	for start := time.Now(); time.Since(start) < 10*time.Second; runtime.Gosched() {
		locks, err := os.ReadFile("/proc/locks")
		if err != nil {
			t.Skipf("no /proc/locks to see the waiter by: %v", err)
		}
		for _, l := range strings.Split(string(locks), "\n") {
			if strings.Contains(l, "-> FLOCK") && strings.Contains(l, want) {
				return
			}
		}
	}
	t.Fatal("the second Lock never waited on the first")
}

// Leave removes a daemon's lock and log files once its socket and pid file
// are gone, and leaves them to another daemon that has started.
func TestLeave(t *testing.T) {
	p := pathsIn(t)
	_, remove, err := Listen(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.Log, []byte("daemon ending\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	remove()
	Leave(p)
	if left, _ := os.ReadDir(p.Dir); len(left) != 0 {
		t.Errorf("a daemon that ended left %v", left)
	}

	// Another daemon started meanwhile: its files stay.
	other := strconv.Itoa(os.Getppid())
	for _, f := range []string{p.Log, p.Pid, p.Lock} {
		if err := os.WriteFile(f, []byte(other+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	Leave(p)
	for _, f := range []string{p.Log, p.Pid, p.Lock} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("another daemon's %s was removed: %v", filepath.Base(f), err)
		}
	}
}

// A daemon whose socket another daemon has taken over (started when the
// first one's socket had gone) leaves that daemon's socket and pid file as
// it ends.
func TestListenRemoveSparesAnotherDaemons(t *testing.T) {
	p := pathsIn(t)
	_, remove, err := Listen(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.Pid, []byte(strconv.Itoa(os.Getppid())+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	remove()
	for _, f := range []string{p.Socket, p.Pid} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("the other daemon's %s was removed: %v", filepath.Base(f), err)
		}
	}
}

// pathsIn is the paths of daemon "k" in a runtime directory of the test's
// own.
func pathsIn(t *testing.T) Paths {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	p, err := For("k")
	if err != nil {
		t.Fatal(err)
	}
	return p
}
