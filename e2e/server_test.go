package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is a `triage serve --http` child with a client connected to it.
type server struct {
	t    testing.TB
	pid  int
	url  string
	cmd  *exec.Cmd
	cs   *mcp.ClientSession
	done chan struct{} // closed when the process has been waited for
}

// startServer runs `triage serve --http 127.0.0.1:0` in dir with the store
// at storePath (":memory:" for none) and extra environment, and connects a
// client. The server is stopped at the end of the test unless the test kills
// it first.
func startServer(t testing.TB, dir, storePath string, wrap []string, env ...string) *server {
	t.Helper()
	argv := append(append([]string{}, wrap...), triageBin, "serve", "--http", "127.0.0.1:0", "--token", "fault-token-0123456789")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "TRIAGE_STORE="+storePath), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, pid: cmd.Process.Pid, cmd: cmd, done: make(chan struct{})}
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`url=(http://\S+)`)
		for sc.Scan() { // drain to the end so the server never blocks on stderr
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urlc <- m[1]
			}
		}
		close(urlc)
	}()
	go func() { cmd.Wait(); close(s.done) }()
	t.Cleanup(func() { s.stop() })
	url, ok := <-urlc
	if !ok {
		t.Fatal("triage serve --http exited before listening")
	}
	s.url = url
	hc := &http.Client{Transport: bearerTransport{"fault-token-0123456789"}}
	s.cs, err = mcp.NewClient(&mcp.Implementation{Name: "e2e"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stop ends the server the polite way (SIGTERM) and waits for it.
func (s *server) stop() {
	if s.cs != nil {
		s.cs.Close()
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// kill SIGKILLs the server and waits for it.
func (s *server) kill() {
	s.cmd.Process.Kill()
	<-s.done
}

// call makes one tool call and returns its text, error flag and
// structured content.
func (s *server) call(name string, args map[string]any) (string, bool, map[string]any) {
	s.t.Helper()
	res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		s.t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	sc, _ := res.StructuredContent.(map[string]any)
	if sc == nil && res.StructuredContent != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(raw, &sc)
	}
	return b.String(), res.IsError, sc
}

// mustCall is call for calls that must succeed.
func (s *server) mustCall(name string, args map[string]any) (string, map[string]any) {
	s.t.Helper()
	text, isErr, sc := s.call(name, args)
	if isErr {
		s.t.Fatalf("%s failed: %s", name, text)
	}
	return text, sc
}
