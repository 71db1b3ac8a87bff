package server

import (
	"context"
	"net"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The daemon's listener serves one MCP session per connection and ends
// itself once idle with nothing alive; while something is (Busy), it stays.
func TestServeUnixSessionsAndIdle(t *testing.T) {
	srv, _ := New(newServices(t, nil), Options{})
	sock := filepath.Join(t.TempDir(), "d.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	// Busy is asked only once the server has been idle long enough to end:
	// each question is a moment it would have ended, had nothing been alive.
	var busy atomic.Bool
	busy.Store(true)
	asked := make(chan struct{}, 100)
	isBusy := func() bool {
		asked <- struct{}{}
		return busy.Load()
	}
	done := make(chan error, 1)
	go func() {
		done <- srv.ServeUnix(context.Background(), ln, UnixOptions{Idle: 20 * time.Millisecond, Busy: isBusy})
	}()

	for range 2 { // two calls, each its own connection and session
		conn, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "session_show_defaults", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("call through the socket: %v %v", err, res)
		}
		cs.Close()
	}
	for range 3 {
		<-asked
	}
	select {
	case err := <-done:
		t.Fatalf("ended while busy: %v", err)
	default:
	}
	busy.Store(false)
	if err := <-done; err != nil {
		t.Errorf("ServeUnix: %v", err)
	}
}
