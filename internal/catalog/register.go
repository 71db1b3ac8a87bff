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
	Register(s, Registration{Tools: tools, Enabled: enabled, Limits: lim})
}

// Registration is what Register adds to a server.
type Registration struct {
	Tools   []*Tool
	Enabled func(workflow string) bool
	Limits  Limits
	// Optional tools are registered too but listed only to a session
	// whose Extra workflows name theirs (OptionalOf); the caller gates
	// their calls.
	Optional   []*Tool
	OptionalOf map[string]string
	Extra      func(ctx context.Context) []string
}

// Register adds r's tools to s and answers tools/list with their schemas.
// It returns a function that tells every session its tool list changed
// (notifications/tools/list_changed): the SDK sends it on a tool's
// (re)registration, so it registers the first tool again, unchanged.
// Call it once per server.
func Register(s *mcp.Server, r Registration) (listChanged func()) {
	listChanged = func() {}
	for _, t := range append(slices.Clip(r.Tools), r.Optional...) {
		mt := t.mcpTool()
		mt.InputSchema = placeholder
		h := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := t.handler(ctx, req, req.Params.Arguments)
			if res != nil {
				r.Limits.bound(res)
			}
			return res, err
		}
		s.AddTool(mt, h)
		if len(r.Tools) > 0 && t == r.Tools[0] {
			listChanged = func() { s.AddTool(mt, h) }
		}
	}
	l := &listing{tools: r.Tools, enabled: r.Enabled, optional: r.Optional, optionalOf: r.OptionalOf, extra: r.Extra}
	s.AddReceivingMiddleware(l.middleware)
	return listChanged
}

// listing answers tools/list from the tools' own schemas, made at the
// first list: a process that is never asked (a CLI call) never makes them.
type listing struct {
	tools      []*Tool
	enabled    func(string) bool
	optional   []*Tool
	optionalOf map[string]string
	extra      func(context.Context) []string
	once       sync.Once
	result     *mcp.ListToolsResult
	opt        []*mcp.Tool // the optional tools' listings, in order
}

func (l *listing) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/list" {
			return next(ctx, method, req)
		}
		l.once.Do(func() {
			l.result = &mcp.ListToolsResult{Tools: l.list(l.tools)}
			l.opt = l.list(l.optional)
		})
		return l.forSession(ctx), nil
	}
}

func (l *listing) list(tools []*Tool) []*mcp.Tool {
	list := make([]*mcp.Tool, len(tools))
	for i, t := range tools {
		mt := t.mcpTool()
		mt.InputSchema, mt.OutputSchema = t.advertised(l.enabled), t.outSchema
		list[i] = mt
	}
	slices.SortFunc(list, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	return list
}

// forSession adds to the listing the optional tools of the workflows the
// session's profile names.
func (l *listing) forSession(ctx context.Context) *mcp.ListToolsResult {
	if l.extra == nil || len(l.opt) == 0 {
		return l.result
	}
	extra := l.extra(ctx)
	var add []*mcp.Tool
	for _, mt := range l.opt {
		if slices.Contains(extra, l.optionalOf[mt.Name]) {
			add = append(add, mt)
		}
	}
	if len(add) == 0 {
		return l.result
	}
	list := append(slices.Clip(l.result.Tools), add...)
	slices.SortFunc(list, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	return &mcp.ListToolsResult{Tools: list}
}
