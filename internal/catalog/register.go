package catalog

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RegisterAll serves tools on s: tools/list with their schemas and
// tools/call by their handlers; enabled tells which workflows are enabled
// (for Unlisted fields). Every answer is bounded by lim. Call it once per
// server, whose options must declare the tools capability.
//
// The tools are served by a middleware rather than the SDK's AddTool, which
// encodes and decodes each tool's schema to check it: most of a cold start's
// work, for dozens of tools a session may never list or call. Arguments are
// validated by the tool itself (Tool.decode); a name that is not one of
// tools goes on to the SDK, which answers that the tool is unknown.
func RegisterAll(s *mcp.Server, tools []*Tool, enabled func(workflow string) bool, lim Limits) {
	l := &listing{tools: tools, enabled: enabled, lim: lim, byName: make(map[string]*Tool, len(tools))}
	for _, t := range tools {
		l.byName[t.Name] = t
	}
	s.AddReceivingMiddleware(l.middleware)
}

// listing answers tools/list from the tools' own schemas, made at the
// first list: a process that is never asked (a CLI call) never makes them.
type listing struct {
	tools   []*Tool
	byName  map[string]*Tool
	enabled func(string) bool
	lim     Limits
	once    sync.Once
	result  *mcp.ListToolsResult
}

func (l *listing) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list":
			l.once.Do(l.list)
			return l.result, nil
		case "tools/call":
			if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
				if t := l.byName[call.Params.Name]; t != nil {
					return l.call(ctx, t, call)
				}
			}
		}
		return next(ctx, method, req)
	}
}

func (l *listing) list() {
	list := make([]*mcp.Tool, len(l.tools))
	for i, t := range l.tools {
		mt := t.mcpTool()
		mt.InputSchema, mt.OutputSchema = t.advertised(l.enabled), t.OutputSchema()
		list[i] = mt
	}
	slices.SortFunc(list, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	l.result = &mcp.ListToolsResult{Tools: list}
}

func (l *listing) call(ctx context.Context, t *Tool, req *mcp.CallToolRequest) (mcp.Result, error) {
	res, err := t.handler(ctx, req, req.Params.Arguments)
	if res == nil {
		return nil, err
	}
	l.lim.bound(res)
	if res.Content == nil {
		res.Content = []mcp.Content{} // "content" is required: never null
	}
	return res, err
}
