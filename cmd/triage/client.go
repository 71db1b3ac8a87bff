package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/daemon"
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

// cliClient is the MCP client a call goes through: the daemon's, or an
// in-process server's.
type cliClient struct {
	session *mcp.ClientSession
	srv     *server.Server // in-process only
	close   func()
}

// client connects the call of tool: to the daemon when one is up for this
// directory and configuration, starting it for a tool that keeps state;
// else to a server in this process. TRIAGE_DAEMON=off keeps every call
// in-process.
func (g *globals) client(ctx context.Context, tool string, stderr io.Writer, progress func(*mcp.ProgressNotificationParams)) (*cliClient, error) {
	if !daemonOff() {
		p, err := g.daemonPaths()
		if err != nil {
			return nil, err
		}
		cs, note, err := g.dialDaemon(ctx, p, stateful(tool), progress)
		if note != "" {
			fmt.Fprint(stderr, note)
		}
		switch {
		case err == nil:
			return &cliClient{session: cs, close: func() { cs.Close() }}, nil
		case stateful(tool):
			return nil, fmt.Errorf("%s keeps state between calls, which needs the daemon: %w (TRIAGE_DAEMON=off runs it in this process, its state gone when the call ends)", tool, err)
		case errors.Is(err, daemon.ErrNotResponding):
			fmt.Fprintf(stderr, "triage: %v; this call runs in this process\n", err)
		}
	}
	srv, svc, err := g.newServer(stderr, false)
	if err != nil {
		return nil, err
	}
	conn, err := connect(ctx, srv, progress)
	if err != nil {
		svc.Close()
		return nil, err
	}
	return &cliClient{session: conn.client, srv: srv, close: func() { conn.Close(); svc.Close() }}, nil
}

// schema returns how to get the properties of tool's input schema: from the
// in-process catalog (unlisted fields included), or the daemon's tools/list.
func (c *cliClient) schema(ctx context.Context, tool string) func() (map[string]any, error) {
	if c.srv != nil {
		return func() (map[string]any, error) { return inputSchema(c.srv.Selection, tool) }
	}
	return func() (map[string]any, error) {
		var names []string
		for t, err := range c.session.Tools(ctx, nil) {
			if err != nil {
				return nil, err
			}
			if t.Name == tool {
				return schemaProperties(t.InputSchema)
			}
			names = append(names, t.Name)
		}
		return nil, unknownTool(tool, names, "`triage tools` lists the enabled tools")
	}
}
