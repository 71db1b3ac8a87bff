package server

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/triage-dev/triage/internal/catalog"
)

// tools/list's encoder writes every tool's schemas, input and output, in
// the bytes the schema package's own encoder writes: the same members, in
// the same order, escaped the same way.
func TestSchemaJSONMatchesTheSchemaPackage(t *testing.T) {
	n := 0
	for _, w := range Catalog(newServices(t, nil)).Workflows {
		for _, tool := range w.Tools {
			for _, s := range []*jsonschema.Schema{tool.InputSchema(), tool.OutputSchema()} {
				if s == nil {
					continue
				}
				want, err := json.Marshal(s)
				if err != nil {
					t.Fatalf("%s: %v", tool.Name, err)
				}
				if got, err := catalog.SchemaJSON(s); err != nil || string(got) != string(want) {
					t.Errorf("%s:\n got %s (%v)\nwant %s", tool.Name, got, err, want)
				}
				n++
			}
		}
	}
	if n < 100 {
		t.Errorf("compared %d schemas; the catalog has more", n)
	}
}
