package catalog

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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

func TestContentImages(t *testing.T) {
	png := Image{Data: []byte("\x89PNG\r\n\x1a\nrest"), MIMEType: "image/png"}
	huge := Image{Data: make([]byte, MaxImageBytes+1), MIMEType: "image/png"}
	got := content("SCREENSHOT ok", []Image{png, huge, {Data: []byte("x"), MIMEType: "text/plain"}})
	if len(got) != 2 {
		t.Fatalf("content = %d parts, want text and one image", len(got))
	}
	text := got[0].(*mcp.TextContent).Text
	for _, want := range []string{"SCREENSHOT ok\n", "image 2 not attached: 4194305 bytes is over the 4194304-byte limit", `image 3 not attached: "text/plain" is not an image type`} {
		if !strings.Contains(text, want) {
			t.Errorf("text %q lacks %q", text, want)
		}
	}
	img, ok := got[1].(*mcp.ImageContent)
	if !ok || string(img.Data) != string(png.Data) || img.MIMEType != "image/png" {
		t.Errorf("image part = %#v", got[1])
	}
	if got := content("plain", nil); len(got) != 1 || got[0].(*mcp.TextContent).Text != "plain" {
		t.Errorf("no images: %#v", got)
	}
}
