package fakexcode

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/server"
	"github.com/triage-dev/triage/internal/services"
)

// Client is an MCP client connected in-process to a server whose catalog
// is the one Connect was given (the Apple workflows forced available).
type Client struct {
	t   testing.TB
	cs  *mcp.ClientSession
	Svc *services.Set
}

// Connect starts a server with an in-memory store over the catalog that
// workflows builds, and connects a client; both close when the test ends.
func Connect(t testing.TB, workflows func(*services.Set) []*catalog.Workflow) *Client {
	t.Helper()
	svc, err := services.New(&config.Config{Store: config.Store{Path: ":memory:"}}, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(svc, server.Options{Catalog: &catalog.Catalog{Workflows: workflows(svc)}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fakexcode"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		svc.Close()
	})
	return &Client{t: t, cs: cs, Svc: svc}
}

// Result is a decoded tool result.
type Result struct {
	IsError bool
	Outcome string // the triage/outcome meta: ok, failed, error, usage_error
	Text    string
	Images  []*mcp.ImageContent
	raw     any
}

// FirstLine is the verdict line.
func (r Result) FirstLine() string {
	line, _, _ := strings.Cut(r.Text, "\n")
	return line
}

// Decode decodes the structured content into v.
func (r Result) Decode(t testing.TB, v any) {
	t.Helper()
	raw, _ := json.Marshal(r.raw)
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
}

// Call calls a tool; a protocol error fails the test.
func (c *Client) Call(tool string, args map[string]any) Result {
	c.t.Helper()
	return c.CallContext(context.Background(), tool, args)
}

// CallContext is Call with a context (to cancel the call).
func (c *Client) CallContext(ctx context.Context, tool string, args map[string]any) Result {
	c.t.Helper()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: %v", tool, err)
	}
	r := Result{IsError: res.IsError, raw: res.StructuredContent}
	r.Outcome, _ = res.Meta["triage/outcome"].(string)
	var b strings.Builder
	for _, ct := range res.Content {
		switch ct := ct.(type) {
		case *mcp.TextContent:
			b.WriteString(ct.Text)
		case *mcp.ImageContent:
			r.Images = append(r.Images, ct)
		}
	}
	r.Text = b.String()
	return r
}

// Tools lists the tools the server registered.
func (c *Client) Tools() []string {
	c.t.Helper()
	res, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		c.t.Fatal(err)
	}
	var names []string
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	return names
}
