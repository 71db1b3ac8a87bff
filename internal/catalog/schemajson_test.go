package catalog

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// The forms the catalog's tools do not use yet are written as the schema
// package writes them too: a list of types, true and false schemas, items
// as a list, definitions, dependencies, constants and defaults, extra
// keywords, properties outside their order, characters encoding/json
// escapes.
func TestSchemaJSONEdges(t *testing.T) {
	one, zero := 1.0, 0
	var c any = "fixed"
	for _, s := range []*jsonschema.Schema{
		{},
		{Not: &jsonschema.Schema{}},
		{Types: []string{"null", "string"}, Description: "a <b> & c", Enum: []any{"x", 2, nil}},
		{Type: "array", ItemsArray: []*jsonschema.Schema{{Type: "integer", Minimum: &one}, {}}, MinItems: &zero},
		{Type: "object", Properties: map[string]*jsonschema.Schema{"z": {Type: "string"}, "a": {}, "m": {Const: &c}},
			PropertyOrder: []string{"m", "gone", "z"}, Required: []string{"z"}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}},
		{Properties: map[string]*jsonschema.Schema{}},
		{Defs: map[string]*jsonschema.Schema{"b": {Type: "boolean"}, "a": {Ref: "#/$defs/b"}},
			DependencySchemas: map[string]*jsonschema.Schema{"x": {Required: []string{"y"}}}, DependencyStrings: map[string][]string{"y": {"x"}}},
		{Type: "string", Default: json.RawMessage(`  "d" `), Extra: map[string]any{"x-triage": true, "a-first": []int{1}}},
		{Extra: map[string]any{"only": "extra"}},
		{AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "null"}}, Items: &jsonschema.Schema{Type: "number"}},
	} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := SchemaJSON(s); err != nil || string(got) != string(want) {
			t.Errorf("\n got %s (%v)\nwant %s", got, err, want)
		}
	}
}
