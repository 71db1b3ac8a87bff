// Package mcptest connects a real go-sdk client to a triage server in the same
// process, for workflow tests. Import it from _test files only.
package mcptest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/server"
	"github.com/triage-dev/triage/internal/services"
)

// Client is a connected test client.
type Client struct {
	t   testing.TB
	CS  *mcp.ClientSession
	Svc *services.Set
	// ListChanged receives one value per notifications/tools/list_changed
	// the client was sent (buffered; a full buffer drops the extra).
	ListChanged <-chan struct{}
}

// Connect starts a server over cfg (nil: defaults, with an in-memory store)
// and connects a client. Everything is closed when the test ends.
func Connect(t testing.TB, cfg *config.Config) *Client {
	t.Helper()
	return connect(t, cfg, nil)
}

// ConnectCatalog is Connect over the catalog workflows builds instead of
// the server's own (a workflow built with injected availability, say),
// with default configuration and an in-memory store.
func ConnectCatalog(t testing.TB, workflows func(*services.Set) []*catalog.Workflow) *Client {
	t.Helper()
	return connect(t, nil, workflows)
}

// ConnectCatalogConfig is ConnectCatalog under a configuration (its
// workflows: select the opt-in ones).
func ConnectCatalogConfig(t testing.TB, cfg *config.Config, workflows func(*services.Set) []*catalog.Workflow) *Client {
	t.Helper()
	return connect(t, cfg, workflows)
}

func connect(t testing.TB, cfg *config.Config, workflows func(*services.Set) []*catalog.Workflow) *Client {
	t.Helper()
	if cfg == nil {
		cfg = &config.Config{}
	}
	if cfg.Store.Path == "" {
		cfg.Store.Path = ":memory:"
	}
	svc, err := services.New(cfg, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	var opts server.Options
	if workflows != nil {
		opts.Catalog = &catalog.Catalog{Workflows: workflows(svc)}
	}
	srv, err := server.New(svc, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{}, 16)
	copts := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcptest"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		svc.Close()
	})
	return &Client{t: t, CS: cs, Svc: svc, ListChanged: changed}
}

// BreakStore makes every body write of the client's output store fail from
// now on, with a real file-system error: the store is opened on disk in a
// fresh directory, whose bodies directory is then replaced by a file. Call
// it before any call that stores output.
func (c *Client) BreakStore() {
	c.t.Helper()
	dir := c.t.TempDir()
	c.Svc.Config.Store.Path = filepath.Join(dir, "out.db")
	if _, err := c.Svc.Store(context.Background()); err != nil {
		c.t.Fatal(err)
	}
	bodies := filepath.Join(dir, "bodies")
	if fi, err := os.Stat(bodies); err != nil || !fi.IsDir() {
		c.t.Fatalf("BreakStore: the store was opened before, elsewhere (%v)", err)
	}
	if err := os.RemoveAll(bodies); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(bodies, nil, 0o644); err != nil {
		c.t.Fatal(err)
	}
}

// CheckNotStoredWhole checks the store-failure rule (internal/capture) on
// the result of a call made after BreakStore: the verdict stands (the
// first line starts with verdict), the outcome is an error but not a tool
// error, and the text says that none of the output is in the store, and
// where it should be.
func (r Result) CheckNotStoredWhole(t testing.TB, verdict string) {
	t.Helper()
	if r.IsError || r.Outcome != "error" {
		t.Errorf("isError %v outcome %q, want a result with outcome error", r.IsError, r.Outcome)
	}
	if !strings.HasPrefix(r.FirstLine(), verdict) {
		t.Errorf("verdict %q, want it to stand: %q", r.FirstLine(), verdict)
	}
	id, _ := r.Out["output_id"].(string)
	if id == "" {
		t.Fatalf("no output_id in %v", r.Out)
	}
	if want := "\nOUTPUT NOT STORED WHOLE: only its first 0 lines are in " + id + ": "; !strings.Contains(r.Text, want) {
		t.Errorf("text lacks %q:\n%s", want, r.Text)
	}
}

// Result is a decoded tool result.
type Result struct {
	IsError bool
	Outcome string // the triage/outcome meta: ok, failed, error, usage_error
	Text    string
	// Images are the image contents, in order.
	Images []*mcp.ImageContent
	// Out is the structured content, decoded into a generic map.
	Out map[string]any
	raw *mcp.CallToolResult
}

// Call calls a tool and decodes its result; a protocol error fails the test.
func (c *Client) Call(tool string, args map[string]any) Result {
	c.t.Helper()
	return c.CallContext(context.Background(), tool, args)
}

// CallContext is Call with a context (to cancel the call).
func (c *Client) CallContext(ctx context.Context, tool string, args map[string]any) Result {
	c.t.Helper()
	res, err := c.CS.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: %v", tool, err)
	}
	r := Result{IsError: res.IsError, raw: res}
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
	if res.StructuredContent != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(raw, &r.Out)
	}
	return r
}

// Tools lists the names of the tools the server registered.
func (c *Client) Tools() []string {
	c.t.Helper()
	res, err := c.CS.ListTools(context.Background(), nil)
	if err != nil {
		c.t.Fatal(err)
	}
	var names []string
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	return names
}

// Decode decodes the structured content into v.
func (r Result) Decode(t testing.TB, v any) {
	t.Helper()
	raw, _ := json.Marshal(r.raw.StructuredContent)
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
}

// FirstLine is the verdict line of the text.
func (r Result) FirstLine() string {
	line, _, _ := strings.Cut(r.Text, "\n")
	return line
}
