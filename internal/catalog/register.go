package catalog

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// placeholder is the input schema the SDK is given for every tool. The
// SDK's AddTool encodes and decodes each tool's schema to check it (most
// of a cold start's work, for schemas it never uses again but to list
// them); the tools' own schemas are listed by tools/list below instead,
// and arguments are validated by the tool itself (Tool.decode).
var placeholder = &jsonschema.Schema{Type: "object"}

// RegisterAll adds tools to s and answers tools/list with their schemas;
// enabled tells which workflows are enabled (for Unlisted fields). Every
// answer is bounded by lim. Call it once per server.
func RegisterAll(s *mcp.Server, tools []*Tool, enabled func(workflow string) bool, lim Limits) {
	for _, t := range tools {
		mt := t.mcpTool()
		mt.InputSchema = placeholder
		s.AddTool(mt, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := t.handler(ctx, req, req.Params.Arguments)
			if res != nil {
				lim.bound(res)
			}
			return res, err
		})
	}
	l := &listing{tools: tools, enabled: enabled}
	s.AddReceivingMiddleware(l.middleware)
}

// listing answers tools/list from the tools' own schemas, made at the
// first list: a process that is never asked (a CLI call) never makes them.
type listing struct {
	tools   []*Tool
	enabled func(string) bool
	once    sync.Once
	result  *mcp.ListToolsResult
}

func (l *listing) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/list" {
			return next(ctx, method, req)
		}
		l.once.Do(func() {
			list := make([]*mcp.Tool, len(l.tools))
			for i, t := range l.tools {
				mt := t.mcpTool()
				mt.InputSchema, mt.OutputSchema = t.advertised(l.enabled), t.outSchema
				list[i] = mt
			}
			slices.SortFunc(list, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
			l.result = &mcp.ListToolsResult{Tools: list}
		})
		return l.result, nil
	}
}
