package server

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/catalog"
)

// checkUnknownArgumentAnswer checks the answer to a call with an unknown
// argument: a usage error that names it and lists every argument the tool
// takes, unlisted ones included.
func checkUnknownArgumentAnswer(t *testing.T, tool *catalog.Tool, res *mcp.CallToolResult, text string) {
	t.Helper()
	if !res.IsError || res.Meta[catalog.OutcomeKey] != string(catalog.UsageError) {
		t.Errorf("%s: IsError=%v outcome=%v, want a usage error: %.300s", tool.Name, res.IsError, res.Meta[catalog.OutcomeKey], text)
	}
	if !strings.Contains(text, `unknown argument "no_such_argument"`) {
		t.Errorf("%s: answer does not name the unknown argument: %.300s", tool.Name, text)
	}
	names := tool.InputSchema().Properties
	if len(names) == 0 && !strings.Contains(text, "takes no arguments") {
		t.Errorf("%s: answer does not say the tool takes no arguments: %.300s", tool.Name, text)
	}
	for name := range names {
		if !strings.Contains(text, name) {
			t.Errorf("%s: answer does not list argument %q: %.300s", tool.Name, name, text)
		}
	}
}

// TestUnknownArgumentListsAllowedNamesForEveryTool calls every tool of the
// catalog, those of workflows unavailable here included, with an unknown
// argument.
func TestUnknownArgumentListsAllowedNamesForEveryTool(t *testing.T) {
	cs, tools := serveEveryTool(t, func(*catalog.Tool) bool { return true })
	for _, tool := range tools {
		res, text := callText(t, cs, tool.Name, map[string]any{"no_such_argument": 1})
		checkUnknownArgumentAnswer(t, tool, res, text)
	}
}

// TestUnknownArgumentThroughServer calls every tool the server lists with an
// unknown argument. The words of a misspelt argument, a wrong type and a
// missing one are pinned by testdata/golden/args.txtar.
func TestUnknownArgumentThroughServer(t *testing.T) {
	srv, _ := New(newServices(t, nil), Options{})
	cs := connect(t, srv, nil)
	for _, tool := range srv.Selection.Tools {
		res, text := callText(t, cs, tool.Name, map[string]any{"no_such_argument": 1})
		checkUnknownArgumentAnswer(t, tool, res, text)
	}
}

// serveEveryTool serves the catalog's tools that keep selects, those of
// workflows unavailable here included, and connects a client to them.
func serveEveryTool(t *testing.T, keep func(*catalog.Tool) bool) (*mcp.ClientSession, []*catalog.Tool) {
	t.Helper()
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "every-tool"}, nil)
	var tools []*catalog.Tool
	for _, w := range Catalog(newServices(t, nil)).Workflows {
		for _, tool := range w.Tools {
			if keep(tool) {
				tools = append(tools, tool)
			}
		}
	}
	catalog.RegisterAll(s, tools, func(string) bool { return true }, catalog.Limits{})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs, tools
}
