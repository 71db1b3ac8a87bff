package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An image in a result is described, never dumped to the terminal.
func TestPrintResultImage(t *testing.T) {
	data := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 1000)...)
	res := &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "SCREENSHOT of iPhone: /tmp/s.png (1x1, 1008 bytes)"},
		&mcp.ImageContent{Data: data, MIMEType: "image/png"},
	}}
	var text bytes.Buffer
	if err := printResult(&text, res, "text"); err != nil {
		t.Fatal(err)
	}
	want := "SCREENSHOT of iPhone: /tmp/s.png (1x1, 1008 bytes)\n[image: image/png, 1008 bytes, not printed]\n"
	if text.String() != want {
		t.Errorf("text output %q, want %q", text.String(), want)
	}
	var js bytes.Buffer
	if err := printResult(&js, res, "json"); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Images []imageInfo `json:"images"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Images) != 1 || got.Images[0] != (imageInfo{"image/png", 1008}) || strings.Contains(js.String(), "iVBOR") {
		t.Errorf("json output: %s", js.String())
	}
}
