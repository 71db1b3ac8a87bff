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
// typed output (structuredContent), images sent after the text (a simulator
// screenshot), and the outcome the CLI turns into its exit status.
package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/fault"
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
	// Images are sent as image content after the text; each is bounded by
	// MaxImageBytes.
	Images []Image
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
	// Available, if set, reports why this tool cannot run here although
	// its workflow can (debug_attach_sim needs Xcode; the debug workflow
	// does not).
	Available func() error

	schemaOnce          sync.Once
	inSchema, outSchema *jsonschema.Schema // made by schemas, on first use
	handler             func(ctx context.Context, req *mcp.CallToolRequest, args json.RawMessage) (*mcp.CallToolResult, error)

	// unlisted maps a workflow id ("" for always) to input properties that
	// tools/list leaves out unless that workflow is enabled; see Unlisted.
	unlisted map[string][]string
	// help is what the CLI's --help says of an argument besides its
	// schema description; see Help.
	help map[string]string

	resolveOnce sync.Once
	resolved    *jsonschema.Resolved // the input schema, compiled on first call
	resolveErr  error
}

// New defines a tool from a typed handler. Input and output schemas are derived
// from In and Out; every field should carry a jsonschema description.
//
// The schemas are derived when first needed (tools/list, a call), not when
// the catalog is built, and arguments are validated against the input schema
// compiled on the tool's first call: start-up costs nothing for the dozens of
// tools a session may never list or call (the Apple workflows off macOS).
func New[In, Out any](name, description string, ann Annotations, h Handler[In, Out]) *Tool {
	t := &Tool{Name: name, Description: description, Annotations: ann, In: reflect.TypeFor[In](), Out: reflect.TypeFor[Out]()}
	t.handler = func(ctx context.Context, req *mcp.CallToolRequest, args json.RawMessage) (*mcp.CallToolResult, error) {
		var in In
		if err := t.decode(args, &in); err != nil {
			return toolError(err, UsageError), nil
		}
		res, err := h(ctx, &Call{req: req, Tool: name}, in)
		if err != nil {
			return toolError(err, OutcomeOf(err)), nil
		}
		if res.Outcome == "" {
			res.Outcome = OK
		}
		out, err := structured(res.Output, t.OutputSchema())
		if err != nil {
			return nil, fmt.Errorf("tool %s: encoding output: %w", name, err)
		}
		return &mcp.CallToolResult{
			Meta:              mcp.Meta{OutcomeKey: string(res.Outcome)},
			Content:           content(res.Text, res.Images),
			StructuredContent: out,
		}, nil
	}
	return t
}

// schemas derives the input and output schemas once. A type the schema
// package cannot describe, or an Unlisted field the input lacks, is a
// programming error: every tool's schemas are made by the catalog's tests.
func (t *Tool) schemas() {
	t.schemaOnce.Do(func() {
		in, err := jsonschema.ForType(t.In, &jsonschema.ForOptions{})
		if err != nil {
			panic(fmt.Sprintf("catalog: tool %s: input schema: %v", t.Name, err))
		}
		dropNull(in)
		for _, fields := range t.unlisted {
			for _, f := range fields {
				if in.Properties[f] == nil {
					panic(fmt.Sprintf("catalog: tool %s: Unlisted names unknown field %q", t.Name, f))
				}
			}
		}
		for f := range t.help {
			if in.Properties[f] == nil {
				panic(fmt.Sprintf("catalog: tool %s: Help names unknown field %q", t.Name, f))
			}
		}
		// Pointer outputs are described by their element: structuredContent
		// is always an object (structured turns a nil pointer into a zero
		// object).
		outType := t.Out
		for outType.Kind() == reflect.Pointer {
			outType = outType.Elem()
		}
		t.inSchema, t.outSchema = in, outputSchema(outType)
	})
}

// decode validates raw arguments against the input schema and decodes them.
func (t *Tool) decode(args json.RawMessage, dst any) error {
	t.resolveOnce.Do(func() { t.resolved, t.resolveErr = t.InputSchema().Resolve(nil) })
	if t.resolveErr != nil {
		return fmt.Errorf("tool %s: input schema: %v", t.Name, t.resolveErr)
	}
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("arguments must be a JSON object, got %s", shortJSON(v))
	}
	if err := t.checkArgs(obj); err != nil {
		return err
	}
	if err := t.resolved.Validate(v); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	if err := json.Unmarshal(args, dst); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}

// structured encodes a handler's output for structuredContent so that it
// matches the output schema: a nil pointer becomes its type's zero object,
// and a top-level null (a nil slice or map) becomes [] or {}.
func structured(out any, schema *jsonschema.Schema) (json.RawMessage, error) {
	v := reflect.ValueOf(out)
	if v.Kind() == reflect.Pointer && v.IsNil() {
		out = reflect.New(v.Type().Elem()).Interface()
	}
	b, err := json.Marshal(out)
	// json.Marshal writes a null member as `"name":null`, without spaces:
	// an answer without `:null` (most, even those whose text says "null")
	// needs no second look.
	if err != nil || !bytes.Contains(b, []byte(":null")) {
		return b, err
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(b, &fields) != nil {
		return b, nil
	}
	for name, raw := range fields {
		if string(raw) != "null" || schema.Properties[name] == nil {
			continue
		}
		switch schema.Properties[name].Type {
		case "array":
			fields[name] = json.RawMessage("[]")
		case "object":
			fields[name] = json.RawMessage("{}")
		}
	}
	return json.Marshal(fields)
}

// OutcomeOf is the outcome of a handler's error, by its fault kind: the
// caller's mistakes (usage, not found) are usage errors; everything else,
// unclassified errors included, is an error of the operation.
func OutcomeOf(err error) Outcome {
	switch fault.KindOf(err) {
	case fault.KindUsage, fault.KindNotFound:
		return UsageError
	}
	return Error
}

func toolError(err error, outcome Outcome) *mcp.CallToolResult {
	r := &mcp.CallToolResult{Meta: mcp.Meta{OutcomeKey: string(outcome)}}
	r.SetError(err)
	return r
}

func (t *Tool) mcpTool() *mcp.Tool {
	a := t.Annotations
	// Hints that equal the protocol's defaults (destructive, open world) are
	// left out: tools/list is read whole by the model, byte by byte.
	ann := &mcp.ToolAnnotations{ReadOnlyHint: a.ReadOnly, IdempotentHint: a.Idempotent}
	if !a.OpenWorld {
		ann.OpenWorldHint = &a.OpenWorld
	}
	if !a.ReadOnly && !a.Destructive {
		ann.DestructiveHint = &a.Destructive
	}
	return &mcp.Tool{Name: t.Name, Description: t.Description, Annotations: ann}
}

// InputSchema is the tool's whole input schema, unlisted fields included.
func (t *Tool) InputSchema() *jsonschema.Schema { t.schemas(); return t.inSchema }

// OutputSchema is the schema tools/list gives for the tool's result.
func (t *Tool) OutputSchema() *jsonschema.Schema { t.schemas(); return t.outSchema }

// Unlisted leaves input properties out of tools/list while workflow is not
// enabled, or always when workflow is "": the Apple defaults on a machine
// without Xcode, or a field that session defaults fill whose explicit twin is
// listed. A call may still pass them: arguments are validated against the
// full schema. It returns t. (A field the input lacks is reported when the
// schemas are made.)
func (t *Tool) Unlisted(workflow string, fields ...string) *Tool {
	if t.unlisted == nil {
		t.unlisted = make(map[string][]string)
	}
	t.unlisted[workflow] = append(t.unlisted[workflow], fields...)
	return t
}

// Help adds text to what the CLI's --help says of the input property
// field, and nowhere else: a default that depends on the configuration
// (timeout_s's), at no cost to tools/list's token budget. It returns t.
func (t *Tool) Help(field, text string) *Tool {
	if t.help == nil {
		t.help = make(map[string]string)
	}
	t.help[field] = text
	return t
}

// ArgHelp is the text Help gave field, or "".
func (t *Tool) ArgHelp(field string) string { return t.help[field] }

// advertised is the input schema as tools/list shows it: without the
// top-level "additionalProperties": false, which every tool would repeat, and
// without its unlisted fields. Arguments are still validated against the full
// schema, so a misspelt argument is still an error that names it.
func (t *Tool) advertised(enabled func(workflow string) bool) *jsonschema.Schema {
	c := *t.InputSchema()
	c.AdditionalProperties = nil
	cloned := false
	for wf, fields := range t.unlisted {
		if wf != "" && enabled(wf) {
			continue
		}
		if !cloned {
			c.Properties, cloned = maps.Clone(t.inSchema.Properties), true
		}
		for _, f := range fields {
			delete(c.Properties, f)
		}
	}
	return &c
}

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

// outputSchema describes a result type by its top-level fields and their
// JSON types. Every tool's schemas are sent in tools/list, which a model reads
// in full before its first call: the field names and types tell it what a
// result holds, while the shapes of nested records (a verdict's indicators, a
// crash report's threads, a debugger's recursive variables) and the field
// descriptions (which stay on the Go types and in docs) multiplied the cost of
// tools/list for little use; the result's text explains itself.
func outputSchema(t reflect.Type) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	addFields(s, t)
	return s
}

func addFields(s *jsonschema.Schema, t reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			addFields(s, ft) // embedded: its fields are the outer object's
			continue
		}
		if name == "" {
			name = f.Name
		}
		s.Properties[name] = &jsonschema.Schema{Type: jsonType(ft)}
	}
}

func jsonType(t reflect.Type) string {
	if t == reflect.TypeFor[time.Time]() {
		return "string" // RFC 3339
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string"
		}
		return "array"
	}
	return "object"
}
