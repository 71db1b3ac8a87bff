package catalog

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

type inner struct {
	A int `json:"a"`
}

type node struct {
	Name     string `json:"name"`
	Children []node `json:"children,omitempty"` // recursive: must not break the schema
}

type sample struct {
	Embedded
	Text    string            `json:"text"`
	Count   int               `json:"count,omitempty"`
	Ratio   float64           `json:"ratio"`
	OK      bool              `json:"ok"`
	List    []string          `json:"list"`
	Map     map[string]string `json:"map"`
	Inner   *inner            `json:"inner,omitempty"`
	When    time.Time         `json:"when"`
	Tree    node              `json:"tree"`
	Skipped string            `json:"-"`
}

type Embedded struct {
	OutputID string `json:"output_id"`
}

func TestOutputSchema(t *testing.T) {
	s := outputSchema(reflect.TypeFor[sample]())
	want := map[string]string{"output_id": "string", "text": "string", "count": "integer", "ratio": "number", "ok": "boolean",
		"list": "array", "map": "object", "inner": "object", "when": "string", "tree": "object"}
	if len(s.Properties) != len(want) {
		t.Fatalf("properties = %v", s.Properties)
	}
	for name, typ := range want {
		if p := s.Properties[name]; p == nil || p.Type != typ {
			t.Errorf("%s: %+v, want type %s", name, p, typ)
		}
	}
	raw, _ := structured(sample{}, s)
	var got map[string]any
	json.Unmarshal(raw, &got)
	if _, ok := got["list"].([]any); !ok {
		t.Errorf("nil slice encoded as %v, want []", got["list"])
	}
	if _, ok := got["map"].(map[string]any); !ok {
		t.Errorf("nil map encoded as %v, want {}", got["map"])
	}
}
