// Package server binds triage's catalog to an MCP server and serves it over
// stdio or streamable HTTP.
//
// The server registers the tools of the enabled workflows in catalog order, so
// tools/list is stable. Tools of disabled or unavailable workflows are not
// listed; a call to one is answered with a tool error that says why, rather than
// "unknown tool". Tool calls are handled concurrently by the SDK, and a
// notifications/cancelled from the client cancels the handler's context.
package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/webui"
	"github.com/triage-dev/triage/internal/workflow/doctor"
)

// Instructions tell an agent in a few lines how to use triage.
const Instructions = `triage builds, tests, runs, debugs and post-mortems native programs and tells you truthfully how each run ended.
- Read the first line of every result: it is the verdict (SUCCEEDED, FAILED, CRASHED (SIGSEGV) ..., TIMED OUT). A crash is never a success, even with exit code 0.
- Long output is stored whole; a result shows an excerpt (errors first) and an output_id. Page it with output_get or search it with output_search instead of re-running.
- Set project_dir, project_path or workspace_path, scheme, configuration, platform, simulator_id or simulator_name, device_id once with session_set_defaults: the tools' arguments of those names are session defaults; explicit arguments still win.
- After a crash, follow the hints: dump_open on the captured core, or debug_attach to re-run under a debugger.
- doctor reports which debuggers and dump engines are installed here.
- Conventions: *_s arguments are seconds; an omitted timeout is the configured one; env merges key by key with the session's; session_id may be omitted (the current debug session, the last opened dump); ids in results (output_id, process id, frame, breakpoint) feed the other tools.`

// Server is an MCP server over one catalog selection.
type Server struct {
	mcp       *mcp.Server
	Selection *catalog.Selection
	Catalog   *catalog.Catalog
	// UI is the web page served under /ui/ beside the MCP endpoint over HTTP.
	UI *webui.UI
}

// Options adjust New.
type Options struct {
	// AllWorkflows registers every workflow, available here or not (for
	// generating documentation).
	AllWorkflows bool
	// Catalog replaces the built-in catalog (tests use it to add probe tools).
	Catalog *catalog.Catalog
}

// New builds the server for svc: the catalog, filtered by the configuration's
// enabled workflows.
func New(svc *services.Set, o Options) (*Server, error) {
	cat := o.Catalog
	if cat == nil {
		cat = Catalog(svc)
	}
	if err := cat.Validate(); err != nil {
		return nil, err
	}
	var sel *catalog.Selection
	if o.AllWorkflows {
		sel = cat.SelectAll()
	} else {
		var err error
		if sel, err = cat.Select(svc.Config.Workflows); err != nil {
			return nil, err
		}
	}
	svc.EnabledWorkflows = nil
	for _, w := range sel.Enabled {
		svc.EnabledWorkflows = append(svc.EnabledWorkflows, w.ID)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "triage", Title: "triage", Version: svc.Version}, &mcp.ServerOptions{
		Instructions: Instructions,
		Logger:       sdkLogger(svc.Log),
		// A profile naming workflows changes the session's tool list.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	extra := func(ctx context.Context) []string { return svc.Defaults.For(ctx).Get("").Workflows }
	listChanged := catalog.Register(s, catalog.Registration{
		Tools: sel.Tools, Enabled: sel.IsEnabled, Limits: catalog.Limits{MaxStructuredBytes: svc.Config.Output.MaxStructuredBytes},
		Optional: sel.Optional, OptionalOf: sel.OptionalOf, Extra: extra,
	})
	svc.Workflows = &gate{cat: cat, listChanged: listChanged}
	s.AddReceivingMiddleware(withCaller, explainAbsent(sel, extra), dropNullArguments, processRelease.middleware)
	addResources(s, svc)
	ui := webui.New(svc, webui.Options{Doctor: func(ctx context.Context) string { return doctor.Inspect(ctx, svc).Text() }})
	return &Server{mcp: s, Selection: sel, Catalog: cat, UI: ui}, nil
}

// sdkLogger passes log to the SDK only at debug level: its session lifecycle
// messages are noise otherwise (and every CLI call is a session).
func sdkLogger(log *slog.Logger) *slog.Logger {
	if log != nil && log.Enabled(context.Background(), slog.LevelDebug) {
		return log
	}
	return nil
}

// MCP returns the underlying SDK server.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// RunStdio serves one client over stdin/stdout until the client disconnects or
// ctx is done. Nothing else may write to stdout meanwhile.
func (s *Server) RunStdio(ctx context.Context) error {
	return s.mcp.Run(ctx, stdioTransport())
}

// explainAbsent answers calls to tools of disabled or unavailable workflows with
// the reason, as a tool error the model can read; an optional tool whose
// workflow the caller's profile names (extra) is let through.
func explainAbsent(sel *catalog.Selection, extra func(context.Context) []string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			name := toolName(req.GetParams())
			reason, ok := sel.Absent[name]
			if w, opt := sel.OptionalOf[name]; !ok || opt && slices.Contains(extra(ctx), w) {
				return next(ctx, method, req)
			}
			res := &mcp.CallToolResult{Meta: mcp.Meta{catalog.OutcomeKey: string(catalog.UsageError)}}
			res.SetError(fmt.Errorf("%s", reason))
			return res, nil
		}
	}
}

// gate checks the workflows a profile names against the catalog.
type gate struct {
	cat         *catalog.Catalog
	listChanged func()
}

func (g *gate) Check(names []string) error {
	for _, n := range names {
		w := g.cat.Workflow(n)
		if w == nil {
			return fmt.Errorf("unknown workflow %q; known workflows: %s", n, strings.Join(g.cat.IDs(), ", "))
		}
		if w.Available != nil {
			if err := w.Available(); err != nil {
				return fmt.Errorf("workflow %q is unavailable here: %v", n, err)
			}
		}
	}
	return nil
}

func (g *gate) ListChanged() { g.listChanged() }

// dropNullArguments removes null-valued arguments before the SDK validates
// them: a null argument means "not given" (session defaults may fill it), and
// schemas stay single-typed.
func dropNullArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" && bytes.Contains(p.Arguments, []byte("null")) {
			var args map[string]json.RawMessage
			if json.Unmarshal(p.Arguments, &args) == nil {
				changed := false
				for k, v := range args {
					if string(bytes.TrimSpace(v)) == "null" {
						delete(args, k)
						changed = true
					}
				}
				if changed {
					p.Arguments, _ = json.Marshal(args)
				}
			}
		}
		return next(ctx, method, req)
	}
}

func toolName(p mcp.Params) string {
	switch x := p.(type) {
	case *mcp.CallToolParamsRaw:
		return x.Name
	case *mcp.CallToolParams:
		return x.Name
	}
	// Unknown params shape: fall back to its JSON form.
	b, _ := json.Marshal(p)
	var v struct{ Name string }
	_ = json.Unmarshal(b, &v)
	return v.Name
}
