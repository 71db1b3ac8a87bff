package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil"
)

// rpcConn talks raw newline-delimited JSON-RPC to `triage serve` over stdio.
type rpcConn struct {
	t      *testing.T
	in     io.WriteCloser
	lines  chan string
	pid    int         // of the server
	cmd    *exec.Cmd   // the server
	stderr *tailBuffer // the server's log, its last stretch
}

func startStdio(t *testing.T) *rpcConn {
	t.Helper()
	cmd := exec.Command(triageBin, "serve")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "TRIAGE_STORE=:memory:")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	stderr := &tailBuffer{max: 256 << 10}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &rpcConn{t: t, in: in, lines: make(chan string, 64), pid: cmd.Process.Pid, cmd: cmd, stderr: stderr}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	return c
}

// dumpServer makes the server print every goroutine's stack (SIGQUIT) and
// returns its log's last stretch: what a failing test needs to say where
// the server was stuck.
func (c *rpcConn) dumpServer() string {
	_ = syscall.Kill(c.pid, syscall.SIGQUIT)
	if testutil.WaitGone(c.pid, 10*time.Second) {
		c.cmd.Wait() // the log's copy ends: the stacks are all in it
	} else {
		c.stderr.Write([]byte("\n(the server did not end within 10s of SIGQUIT)"))
	}
	return c.stderr.String()
}

// tailBuffer keeps the last max bytes written to it; it is safe for
// concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (w *tailBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b = append(w.b, p...)
	if over := len(w.b) - w.max; over > 0 {
		w.b = append(w.b[:0], w.b[over:]...)
	}
	return len(p), nil
}

func (w *tailBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.b)
}

func (c *rpcConn) send(raw string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, raw+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// recv returns the next message; every stdout line must be JSON-RPC.
func (c *rpcConn) recv() map[string]any {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatal("server closed stdout")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || m["jsonrpc"] != "2.0" {
			c.t.Fatalf("stdout carried a non-protocol line: %q", line)
		}
		return m
	case <-time.After(30 * time.Second):
		c.t.Fatal("no answer from server within 30s")
	}
	return nil
}

func (c *rpcConn) initialize() {
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := c.recv(); m["result"] == nil {
		c.t.Fatalf("initialize: %v", m)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func TestStdioBadInputKeepsServing(t *testing.T) {
	c := startStdio(t)
	c.initialize()
	huge := strings.Repeat("x", 1<<20)
	tests := []struct {
		name, req string
		check     func(m map[string]any) bool
	}{
		{"unknown tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
			func(m map[string]any) bool {
				return m["error"] != nil && strings.Contains(fmt.Sprint(m["error"]), "nope")
			}},
		{"wrong argument type", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"session_set_defaults","arguments":{"timeout_s":"soon"}}}`,
			isToolError},
		{"unknown argument", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"session_set_defaults","arguments":{"frobnicate":true}}}`,
			isToolError},
		{"unknown method", `{"jsonrpc":"2.0","id":4,"method":"tools/frobnicate","params":{}}`,
			func(m map[string]any) bool { return m["error"] != nil }},
		{"huge argument", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"session_set_defaults","arguments":{"scheme":"` + huge + `"}}}`,
			func(m map[string]any) bool {
				r, _ := m["result"].(map[string]any)
				return r != nil && r["isError"] != true
			}},
	}
	for _, tt := range tests {
		c.send(tt.req)
		if m := c.recv(); !tt.check(m) {
			t.Errorf("%s: unexpected answer %.300v", tt.name, m)
		}
	}
	// Malformed JSON gets a parse error (or is dropped), never a dead server.
	c.send(`{"jsonrpc":"2.0","id":6,"method":`)
	c.send(`this is not json`)
	c.send(`[1,2,3]`)
	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	for {
		m := c.recv()
		if id, ok := m["id"].(float64); ok && id == 7 {
			if m["result"] == nil {
				t.Fatalf("tools/list after malformed input: %v", m)
			}
			break
		}
		if m["error"] == nil {
			t.Fatalf("malformed input answered with %v", m)
		}
	}
}

func isToolError(m map[string]any) bool {
	r, _ := m["result"].(map[string]any)
	return r != nil && r["isError"] == true
}
