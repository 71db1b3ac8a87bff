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
	daemon  *daemon.Paths  // the daemon's only
	close   func()
}

// listings are the tools whose answer lists what a daemon holds: through
// a daemon, the CLI adds which directory it serves and what the user's
// other daemons hold (othersNote), as a list of one daemon's alone would
// hide a process started in another directory.
var listings = map[string]bool{"process_list": true, "dump_list": true}

// note is what the CLI adds to tool's answer in text, through a daemon:
// for a listing, the directory it serves and the other daemons' holds; for
// a call refused (usage error) whose id is another daemon's, where it is.
func (c *cliClient) note(ctx context.Context, tool string, args map[string]any, code int) string {
	switch {
	case c.daemon == nil:
		return ""
	case listings[tool]:
		return othersNote(ctx, *c.daemon, cwd())
	case code == exitUsage:
		for _, k := range []string{"id", "session_id"} {
			if id, ok := args[k].(string); ok && id != "" {
				return holderNote(ctx, *c.daemon, id)
			}
		}
	}
	return ""
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
			return &cliClient{session: cs, daemon: &p, close: func() { cs.Close() }}, nil
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
func (c *cliClient) schema(ctx context.Context, tool string, keys []string, g globals, stderr io.Writer) func() (map[string]any, error) {
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
				props, err := schemaProperties(t.InputSchema)
				if err == nil && !hasAll(props, keys) {
					props = withUnlisted(props, tool, g, stderr)
				}
				return props, err
			}
			names = append(names, t.Name)
		}
		return nil, unknownTool(tool, names, "`triage tools` lists the enabled tools")
	}
}

// withUnlisted adds to a daemon's listed properties of tool the ones
// tools/list leaves out (memcheck, stall_s, repeat…), from this binary's
// own catalog, so that `--repeat 20` is an integer through a daemon too.
// Built only when a key is not listed: it costs a server's start.
func withUnlisted(props map[string]any, tool string, g globals, stderr io.Writer) map[string]any {
	g.logLevel = "error"
	srv, svc, err := g.newServer(stderr, false)
	if err != nil {
		return props
	}
	defer svc.Close()
	all, err := inputSchema(srv.Selection, tool)
	if err != nil {
		return props
	}
	for k, v := range all {
		if _, ok := props[k]; !ok {
			props[k] = v
		}
	}
	return props
}

func hasAll(props map[string]any, keys []string) bool {
	for _, k := range keys {
		if _, ok := props[k]; !ok {
			return false
		}
	}
	return true
}

// pairKeys are the --KEY names of pairs.
func pairKeys(pairs [][2]string) []string {
	keys := make([]string, len(pairs))
	for i, p := range pairs {
		keys[i] = p[0]
	}
	return keys
}
