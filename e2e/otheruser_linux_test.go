package e2e

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A second local user, made by the test and removed at its end, gets
// nothing of the first user's triage: not the store's outputs (a secret a
// program printed), not the daemon's socket, not the log file, and not an
// HTTP server, which takes a token unless told otherwise.
func TestSecondLocalUserGetsNothing(t *testing.T) {
	other := otherUser(t)
	// The test's directory, and every directory above it, is open to
	// every user, so that only the modes triage gives its own files keep
	// the other user out.
	dir, err := os.MkdirTemp("/tmp", "other")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "triage")
	copyFile(t, triageBin, bin, 0o755)

	sh := newShell(t, dir)
	// So is the runtime directory that holds the daemon's socket.
	if err := os.Chmod(strings.TrimPrefix(sh.env[0], "XDG_RUNTIME_DIR="), 0o755); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "store", "out.db")
	sh.env[len(sh.env)-1] = "TRIAGE_STORE=" + store
	const secret = "s3cret-token-of-the-first-user"
	sh.call(0, "run", "--program", "/bin/echo", "--args", secret)
	sh.call(0, "process_start", "--program", "/bin/sleep", "--args", "600")

	t.Run("store", func(t *testing.T) {
		// grep -r exits 1 when it read everything and found nothing, 2
		// when something could not be read: what the other user may read
		// holds no secret, and the store was not readable.
		code, out := asUser(t, other, nil, "grep", "-r", "-l", secret, dir)
		denied := 0
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			path, ok := strings.CutSuffix(strings.TrimPrefix(line, "grep: "), ": Permission denied")
			if !ok || !strings.HasPrefix(path, filepath.Dir(store)) {
				t.Errorf("grep -r as %s: %q: neither a refusal nor in the store", other, line)
			}
			denied++
		}
		if code != 2 || denied == 0 {
			t.Fatalf("grep -r as %s: exit %d, want 2 with the store unreadable:\n%s", other, code, out)
		}
	})
	t.Run("daemon", func(t *testing.T) {
		env := []string{sh.env[0], "TRIAGE_DAEMON=", "TRIAGE_STORE=" + store, "HOME=" + dir}
		code, out := asUser(t, other, env, bin, "process_list")
		if code == 0 || strings.Contains(out, "/bin/sleep") {
			t.Fatalf("process_list as %s through the first user's daemon: exit %d:\n%s", other, code, out)
		}
	})
	t.Run("http", func(t *testing.T) {
		logFile := filepath.Join(dir, "serve.log")
		addr := startServe(t, sh, "--http", "127.0.0.1:0", "--log-file", logFile)
		code, out := asUser(t, other, nil, "bash", "-c", postInitialize, "bash", strings.TrimPrefix(addr, "127.0.0.1:"))
		if code != 0 || !regexp.MustCompile(`^HTTP/1\.[01] 401`).MatchString(out) {
			t.Fatalf("a request without the token as %s: exit %d, want a 401:\n%s", other, code, out)
		}
		if code, out := asUser(t, other, nil, "cat", logFile); code == 0 {
			t.Fatalf("the server's log file is readable by %s:\n%s", other, out)
		}
		if b, err := os.ReadFile(logFile); err != nil || strings.Contains(string(b), "/ui/login") {
			t.Fatalf("the log file holds a login URL (or is missing: %v):\n%s", err, b)
		}
	})
}

// postInitialize sends an MCP initialize request without a token to the
// loopback port $1 (bash's /dev/tcp: no client tool is needed) and prints
// the response's status line.
const postInitialize = `body='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"other","version":"1"}}}'
exec 3<>/dev/tcp/127.0.0.1/"$1" || exit 3
printf 'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' "${#body}" "$body" >&3
head -n 1 <&3`

// otherUser makes a local user for this test and removes it at the end.
// Making one needs root, which CI has.
func otherUser(t *testing.T) string {
	t.Helper()
	if os.Getuid() != 0 {
		msg := "making a second local user needs root"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	useradd := need(t, "useradd", "apt-get install passwd")
	name := fmt.Sprintf("triage-t%d", os.Getpid()%100000)
	if _, err := user.Lookup(name); err == nil {
		_ = exec.Command("userdel", name).Run() // left by a killed run
	}
	if out, err := exec.Command(useradd, "--no-create-home", "--user-group", "--shell", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
		t.Fatalf("useradd %s: %v\n%s", name, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("userdel", name).CombinedOutput(); err != nil {
			t.Errorf("userdel %s: %v\n%s", name, err, out)
		}
	})
	return name
}

// asUser runs argv as the user name with env (a minimal one when nil) and
// returns its exit status and combined output.
func asUser(t *testing.T, name string, env []string, argv ...string) (int, string) {
	t.Helper()
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--reuid=" + u.Uid, "--regid=" + u.Gid, "--clear-groups", "--"}, argv...)
	cmd := exec.Command(need(t, "setpriv", "apt-get install util-linux"), args...)
	cmd.Dir = "/"
	cmd.Env = append([]string{"PATH=/usr/bin:/bin:/usr/sbin:/sbin"}, env...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatalf("%s as %s: %v", strings.Join(argv, " "), name, err)
	}
	return 0, string(out)
}

// startServe starts `triage serve` with args as sh's user, waits for the
// address it prints on stderr and stops it at the test's end.
func startServe(t *testing.T, sh *shell, args ...string) string {
	t.Helper()
	cmd := exec.Command(triageBin, append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), sh.env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
				break
			}
		}
		close(addr)
		_, _ = io.Copy(io.Discard, stderr)
	}()
	a, ok := <-addr
	if !ok {
		t.Fatal("triage serve ended without printing its address")
	}
	return a
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}
