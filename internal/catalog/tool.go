// Package catalog defines triage's tools and workflows and binds them to MCP.
//
// A Tool has a name, a description, behaviour hints, a typed input and output
// (whose JSON schemas the model sees) and a handler. A Workflow groups tools that
// are enabled or disabled together and may be unavailable on a platform (the
// Apple workflows off macOS). Selection turns a configuration into the ordered
// set of tools a server registers; tools of disabled or unavailable workflows are
// remembered so that calling one explains why it is absent.
//
// Handlers return a Result: a short text whose first line is the verdict, the
// typed output (structuredContent), and the outcome the CLI turns into its exit
// status.
package catalog

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/defaults"
)

// Outcome says how a tool call went, beyond protocol success.
type Outcome string

const (
	// OK: the operation succeeded and what it observed is a success.
	OK Outcome = "ok"
	// Failed: the operation ran but observed a failure or crash (a crashed
	// program, failing tests); the result carries the verdict.
	Failed Outcome = "failed"
	// Error: the operation itself could not be carried out.
	Error Outcome = "error"
	// UsageError: the arguments were wrong; the message says what to change.
	UsageError Outcome = "usage_error"
)

// OutcomeKey is the _meta key that carries a result's Outcome.
const OutcomeKey = "triage/outcome"

// Result is what a handler returns.
type Result[Out any] struct {
	// Text is for the model; its first line is the verdict.
	Text string
	// Output is the structured result.
	Output Out
	// Outcome defaults to OK.
	Outcome Outcome
}

// Handler implements a tool.
type Handler[In, Out any] func(ctx context.Context, c *Call, in In) (Result[Out], error)

// Annotations are hints to clients about a tool's behaviour.
type Annotations struct {
	ReadOnly    bool // does not change its environment
	Destructive bool // may destroy or overwrite (only meaningful when not read-only)
	Idempotent  bool // repeating the call has no further effect
	OpenWorld   bool // talks to things outside triage's control (processes, remote hosts)
}

// Tool is one tool of the catalog.
type Tool struct {
	Name        string
	Description string
	Annotations Annotations
	In, Out     reflect.Type

	register func(*mcp.Server) // binds the typed handler; built by New
}

// New defines a tool from a typed handler. Input and output schemas are derived
// from In and Out; every field should carry a jsonschema description.
func New[In, Out any](name, description string, ann Annotations, h Handler[In, Out]) *Tool {
	t := &Tool{Name: name, Description: description, Annotations: ann, In: reflect.TypeFor[In](), Out: reflect.TypeFor[Out]()}
	typed := func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		c := &Call{req: req, Tool: name}
		res, err := h(ctx, c, in)
		if err != nil {
			var zero Out
			outcome := Error
			var ue *defaults.UsageError
			if errors.As(err, &ue) {
				outcome = UsageError
			}
			r := &mcp.CallToolResult{Meta: mcp.Meta{OutcomeKey: string(outcome)}}
			r.SetError(err)
			return r, zero, nil
		}
		if res.Outcome == "" {
			res.Outcome = OK
		}
		r := &mcp.CallToolResult{
			Meta:    mcp.Meta{OutcomeKey: string(res.Outcome)},
			Content: []mcp.Content{&mcp.TextContent{Text: res.Text}},
		}
		return r, res.Output, nil
	}
	in, err := jsonschema.ForType(t.In, &jsonschema.ForOptions{})
	if err != nil {
		panic(fmt.Sprintf("catalog: tool %s: input schema: %v", name, err))
	}
	dropNull(in)
	t.register = func(s *mcp.Server) {
		mt := t.mcpTool()
		mt.InputSchema = in
		mcp.AddTool(s, mt, typed)
	}
	return t
}

func (t *Tool) mcpTool() *mcp.Tool {
	a := t.Annotations
	ann := &mcp.ToolAnnotations{ReadOnlyHint: a.ReadOnly, IdempotentHint: a.Idempotent, OpenWorldHint: &a.OpenWorld}
	if !a.ReadOnly {
		ann.DestructiveHint = &a.Destructive
	}
	return &mcp.Tool{Name: t.Name, Description: t.Description, Annotations: ann}
}

// Register adds the tool to an MCP server.
func (t *Tool) Register(s *mcp.Server) { t.register(s) }

// dropNull rewrites ["null", T] types as T throughout an input schema. Arguments
// that are null count as absent anyway, and single types are the portable form
// (some clients map schemas onto a one-type dialect).
func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && (s.Types[0] == "null" || s.Types[1] == "null") {
		if s.Types[0] == "null" {
			s.Type = s.Types[1]
		} else {
			s.Type = s.Types[0]
		}
		s.Types = nil
	}
	for _, p := range s.Properties {
		dropNull(p)
	}
	dropNull(s.Items)
	dropNull(s.AdditionalProperties)
}
