package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/daemon"
)

// silentDaemon stands where this directory's daemon would be and behaves
// as a stopped one does: the kernel accepts its connections, and nothing
// ever answers. Its pid file names this process (alive).
func silentDaemon(t *testing.T) {
	t.Helper()
	rt, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rt) })
	t.Setenv("XDG_RUNTIME_DIR", rt)
	t.Setenv("TRIAGE_DAEMON", "")
	t.Setenv("TRIAGE_STORE", ":memory:")
	var g globals
	p, err := g.daemonPaths()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", p.Socket)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.Pid, []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 64) // held open, never answered
	go func() {
		defer close(accepted)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for c := range accepted {
			c.Close()
		}
	})
	was := daemon.PingWithin
	daemon.PingWithin = 100 * time.Millisecond // it never answers: the bound's length does not matter
	t.Cleanup(func() { daemon.PingWithin = was })
}

// TestDaemonNotResponding: a daemon that accepts but never answers (as a
// SIGSTOPped one) is reported by `daemon status` as not responding, a
// stateful call says so instead of hanging, and a stateless call runs in
// this process, saying why.
func TestDaemonNotResponding(t *testing.T) {
	silentDaemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a failure bound: the hang this test is about
	defer cancel()
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"daemon", "status"}, strings.NewReader(""), &stdout, &stderr); code != 1 || !strings.Contains(stdout.String(), "not responding") {
		t.Errorf("daemon status: exit %d, %q %q; want 1 and not responding", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(ctx, []string{"call", "process_list"}, strings.NewReader(""), &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "did not answer") || ctx.Err() != nil {
		t.Errorf("a stateful call: exit %d, %q; want a failure saying the daemon did not answer", code, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(ctx, []string{"call", "output_list"}, strings.NewReader(""), &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "runs in this process") {
		t.Errorf("a stateless call: exit %d, stdout %q, stderr %q; want it run here, saying why", code, stdout.String(), stderr.String())
	}
}
