package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RegisterAll serves tools on s (see Register).
func RegisterAll(s *mcp.Server, tools []*Tool, enabled func(workflow string) bool, lim Limits) {
	Register(s, Registration{Tools: tools, Enabled: enabled, Limits: lim})
}

// Registration is what Register serves on a server.
type Registration struct {
	Tools   []*Tool
	Enabled func(workflow string) bool
	Limits  Limits
	// Optional tools are served too but listed only to a session
	// whose Extra workflows name theirs (OptionalOf); the caller gates
	// their calls.
	Optional   []*Tool
	OptionalOf map[string]string
	Extra      func(ctx context.Context) []string
}

// Register serves r's tools on s: tools/list with their schemas and
// tools/call by their handlers; Enabled tells which workflows are enabled
// (for Unlisted fields). Every answer is bounded by r.Limits. Call it once
// per server, whose options must declare the tools capability.
//
// The tools are served by a middleware rather than the SDK's AddTool, which
// encodes and decodes each tool's schema to check it: most of a cold start's
// work, for dozens of tools a session may never list or call. Arguments are
// validated by the tool itself (Tool.decode); a name that is none of the
// tools goes on to the SDK, which answers that the tool is unknown.
//
// It returns a function that tells every session its tool list changed
// (notifications/tools/list_changed). The SDK sends that only when a tool
// is (re)registered with it, so the function registers a sentinel tool that
// no listing shows and whose call is refused.
func Register(s *mcp.Server, r Registration) (listChanged func()) {
	l := &listing{Registration: r, byName: make(map[string]*Tool, len(r.Tools)+len(r.Optional))}
	for _, t := range slices.Concat(r.Tools, r.Optional) {
		l.byName[t.Name] = t
	}
	s.AddReceivingMiddleware(l.middleware)
	sentinel := &mcp.Tool{Name: listChangedSentinel, InputSchema: &jsonschema.Schema{Type: "object"}}
	refuse := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("unknown tool %q", listChangedSentinel)
	}
	return func() { s.AddTool(sentinel, refuse) }
}

// listChangedSentinel names the tool Register's list-changed function
// registers with the SDK.
const listChangedSentinel = "triage_list_changed"

// listing answers tools/list from the tools' own schemas, made at the
// first list (a process that is never asked, a CLI call, never makes them),
// and tools/call by the tools' handlers.
type listing struct {
	Registration
	byName map[string]*Tool
	once   sync.Once
	result *mcp.ListToolsResult
	opt    []*mcp.Tool // the optional tools' listings, in order
}

func (l *listing) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list":
			l.once.Do(func() {
				l.result = &mcp.ListToolsResult{Tools: l.list(l.Tools)}
				l.opt = l.list(l.Optional)
			})
			return l.forSession(ctx), nil
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

func (l *listing) list(tools []*Tool) []*mcp.Tool {
	list := make([]*mcp.Tool, len(tools))
	for i, t := range tools {
		mt := t.mcpTool()
		mt.InputSchema, mt.OutputSchema = encodedSchema(t.advertised(l.Enabled)), encodedSchema(t.OutputSchema())
		list[i] = mt
	}
	slices.SortFunc(list, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	return list
}

// encodedSchema is s encoded once for every list a process answers
// (SchemaJSON), or s itself should that fail (the SDK then encodes it).
func encodedSchema(s *jsonschema.Schema) any {
	if s == nil {
		return nil
	}
	if b, err := SchemaJSON(s); err == nil {
		return b
	}
	return s
}

// forSession adds to the listing the optional tools of the workflows the
// session's profile names.
func (l *listing) forSession(ctx context.Context) *mcp.ListToolsResult {
	if l.Extra == nil || len(l.opt) == 0 {
		return l.result
	}
	extra := l.Extra(ctx)
	var add []*mcp.Tool
	for _, mt := range l.opt {
		if slices.Contains(extra, l.OptionalOf[mt.Name]) {
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

func (l *listing) call(ctx context.Context, t *Tool, req *mcp.CallToolRequest) (mcp.Result, error) {
	res, err := t.handler(ctx, req, req.Params.Arguments)
	if res == nil {
		return nil, err
	}
	l.Limits.bound(res)
	if res.Content == nil {
		res.Content = []mcp.Content{} // "content" is required: never null
	}
	return res, err
}
