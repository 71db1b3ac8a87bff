package catalog

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/jsoncut"
	"github.com/triage-dev/triage/internal/textclip"
)

// Every answer and every argument of every tool is bounded here, once, by
// the same rules, whatever a handler does: a handler that forgets its
// budget gives a cut answer, never an unbounded one.
const (
	// MaxStringBytes bounds a string argument (at any depth: an element of
	// args, a value of env). Longer strings are refused before any work.
	MaxStringBytes = 1 << 20
	// MaxTextBytes bounds the text of an answer; handlers aim at the
	// configured budget (8 KiB by default), this is the hard stop.
	MaxTextBytes = 64 << 10
	// MaxErrorBytes bounds the text of an error: an error that quotes an
	// argument quotes its start.
	MaxErrorBytes = 4 << 10
	// DefaultMaxStructuredBytes bounds the structured content of an answer
	// unless configured (output.max_structured_bytes).
	DefaultMaxStructuredBytes = 64 << 10
)

// Limits are the bounds of answers a server applies to every tool.
type Limits struct {
	// MaxStructuredBytes bounds the structured content (0:
	// DefaultMaxStructuredBytes).
	MaxStructuredBytes int
}

// bound cuts an answer to the limits: its text, and its structured content.
func (l Limits) bound(res *mcp.CallToolResult) {
	max := MaxTextBytes
	if res.IsError {
		max = MaxErrorBytes
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			tc.Text = clipText(tc.Text, max)
		}
	}
	if raw, ok := res.StructuredContent.(json.RawMessage); ok {
		limit := l.MaxStructuredBytes
		if limit <= 0 {
			limit = DefaultMaxStructuredBytes
		}
		res.StructuredContent = jsoncut.Bound(raw, limit)
	}
}

// tooLong names the string arguments over MaxStringBytes, at any depth.
func tooLong(name string, v any) []string {
	switch x := v.(type) {
	case string:
		if len(x) > MaxStringBytes {
			return []string{fmt.Sprintf("%s: a string of %d bytes; at most %d", clipName(name), len(x), MaxStringBytes)}
		}
	case []any:
		var out []string
		for i, e := range x {
			out = append(out, tooLong(fmt.Sprintf("%s[%d]", name, i), e)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, k := range sortedKeys(x) {
			out = append(out, tooLong(name+"."+k, x[k])...)
		}
		return out
	}
	return nil
}

// clipName bounds a name quoted in an error (an argument's name is the
// client's to choose, and can be as long as a value).
func clipName(s string) string { return clip(s, 80) }

// clip cuts s to at most n bytes (on a rune boundary), saying how long it
// was.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	kept := textclip.Prefix(s, n)
	return fmt.Sprintf("%s… [cut: %d of %d bytes]", kept, len(kept), len(s))
}

// clipText bounds an answer's text, saying where to find the rest.
func clipText(text string, max int) string {
	if len(text) <= max {
		return text
	}
	return clip(text, max) + "\nthe answer was cut at the response limit: page stored outputs with output_get, or ask for less\n"
}
