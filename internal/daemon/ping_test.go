package daemon

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestNotRespondingNamesAStoppedProcess: the error of a daemon that does
// not answer says when its process is stopped (SIGSTOP), which a running
// one is not.
func TestNotRespondingNamesAStoppedProcess(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	dir := t.TempDir()
	p := Paths{Socket: dir + "/d.sock", Pid: dir + "/d.pid"}
	if err := os.WriteFile(p.Pid, []byte(strconv.Itoa(cmd.Process.Pid)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := NotResponding(p, os.ErrDeadlineExceeded); strings.Contains(err.Error(), "stopped (SIGSTOP") {
		t.Errorf("a running process called stopped: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// Wait for the stop itself (WUNTRACED reports it, reaping nothing),
	// not for a time.
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(cmd.Process.Pid, &ws, syscall.WUNTRACED, nil); err != nil || !ws.Stopped() {
		t.Fatalf("waiting for the stop: %v %v", err, ws)
	}
	if err := NotResponding(p, os.ErrDeadlineExceeded); !strings.Contains(err.Error(), "stopped (SIGSTOP") || !strings.Contains(err.Error(), "kill -CONT") {
		t.Errorf("a stopped process: %v", err)
	}
}
