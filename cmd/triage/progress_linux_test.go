package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPty opens a pseudo-terminal: its master, and its slave as a
// program's terminal.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	var unlock int32
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatal(e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatal(e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// On a real terminal a long call draws its status line and erases it.
func TestStatusLineOnATerminal(t *testing.T) {
	master, slave := openPty(t)
	defer master.Close()
	read := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(master) // ends with EIO once the slave is closed
		read <- b
	}()
	t.Setenv("TRIAGE_STORE", ":memory:")
	t.Setenv("TERM", "xterm")
	var stdout bytes.Buffer
	code := run(context.Background(), []string{"run", "--program", "sh", "--args=-c", "--args", "sleep 1.5; echo done"}, nil, &stdout, slave)
	slave.Close()
	out := string(<-read)
	if code != 0 || !strings.Contains(stdout.String(), "done") {
		t.Fatalf("exit %d: %s", code, stdout.String())
	}
	if !strings.Contains(out, "\r\033[Ktriage run · ") || !strings.Contains(out, "s · running sh") {
		t.Errorf("no status line on the terminal: %q", out)
	}
	if !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("the status line is not erased at the end: %q", out)
	}
}
