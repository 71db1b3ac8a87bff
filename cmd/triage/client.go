package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/server"
)

// inProcess is an MCP client connected to a server in the same process over
// in-memory transports, so the CLI goes through exactly the handlers an MCP
// client reaches.
type inProcess struct {
	client  *mcp.ClientSession
	session *mcp.ServerSession
}

// connect starts srv on one end of an in-memory pipe and a client on the other.
// progress, if non-nil, receives progress notifications.
func connect(ctx context.Context, srv *server.Server, progress func(*mcp.ProgressNotificationParams)) (*inProcess, error) {
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		return nil, fmt.Errorf("starting in-process server: %w", err)
	}
	opts := &mcp.ClientOptions{}
	if progress != nil {
		opts.ProgressNotificationHandler = func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			progress(r.Params)
		}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "triage-cli", Version: versionString()}, opts)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		return nil, fmt.Errorf("connecting in-process client: %w", err)
	}
	return &inProcess{client: cs, session: ss}, nil
}

func (p *inProcess) Close() {
	p.client.Close()
	p.session.Wait()
}

// tools lists every registered tool, following pagination.
func (p *inProcess) tools(ctx context.Context) ([]*mcp.Tool, error) {
	var out []*mcp.Tool
	for t, err := range p.client.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// progressPrinter shows live progress on stderr when it is a terminal.
type progressPrinter struct {
	mu  sync.Mutex
	w   io.Writer
	any bool
}

func newProgressPrinter(w io.Writer) *progressPrinter {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return &progressPrinter{w: w}
}

func (p *progressPrinter) show(n *mcp.ProgressNotificationParams) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.any = true
	if n.Total > 0 {
		fmt.Fprintf(p.w, "\r\033[K[%.0f/%.0f] %s", n.Progress, n.Total, n.Message)
	} else {
		fmt.Fprintf(p.w, "\r\033[K%s", n.Message)
	}
}

func (p *progressPrinter) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.any {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
