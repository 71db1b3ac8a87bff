package catalog

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
		res.StructuredContent = boundStructured(raw, limit)
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

// boundStructured shrinks an encoded structured result to at most max
// bytes: the biggest array loses the second half of its elements, or the
// biggest string its second half, one at a time, until it fits; "_cut" lists
// what was cut. The text (and the stored output it names) carries the rest.
func boundStructured(b json.RawMessage, max int) json.RawMessage {
	if len(b) <= max {
		return b
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		return b
	}
	cuts := map[string]*cut{}
	for len(b) > max {
		c := largest(obj, "")
		if c == nil || !c.halve(cuts) {
			break
		}
		nb, err := json.Marshal(withCuts(obj, cuts))
		if err != nil {
			break
		}
		b = nb
	}
	return b
}

// cut is a value that can be halved: an element of a map or of an array.
type cut struct {
	path   string
	inMap  map[string]any
	inList []any
	key    string
	index  int
	size   int // encoded size, to pick the largest

	orig, kept int // elements or bytes, before any cut and now
	bytes      bool
}

func (c *cut) get() any {
	if c.inMap != nil {
		return c.inMap[c.key]
	}
	return c.inList[c.index]
}

func (c *cut) set(v any) {
	if c.inMap != nil {
		c.inMap[c.key] = v
	} else {
		c.inList[c.index] = v
	}
}

// halve cuts the value in half, recording it in cuts by path.
func (c *cut) halve(cuts map[string]*cut) bool {
	rec := cuts[c.path]
	switch x := c.get().(type) {
	case []any:
		if len(x) < 2 {
			return false
		}
		if rec == nil {
			rec = &cut{orig: len(x)}
			cuts[c.path] = rec
		}
		c.set(x[:len(x)/2])
		rec.kept = len(x) / 2
	case string:
		if len(x) <= 64 {
			return false
		}
		if rec == nil {
			rec = &cut{orig: len(x), bytes: true}
			cuts[c.path] = rec
		}
		kept := textclip.Prefix(x, len(x)/2)
		c.set(kept + "…")
		rec.kept = len(kept)
	default:
		return false
	}
	return true
}

// withCuts adds the "_cut" list to obj.
func withCuts(obj map[string]any, cuts map[string]*cut) map[string]any {
	notes := make([]string, 0, len(cuts))
	for path, c := range cuts {
		if c.bytes {
			notes = append(notes, fmt.Sprintf("%s: the first %d of %d bytes", path, c.kept, c.orig))
		} else {
			notes = append(notes, fmt.Sprintf("%s: the first %d of %d elements", path, c.kept, c.orig))
		}
	}
	sort.Strings(notes)
	obj["_cut"] = notes
	return obj
}

// largest finds the biggest value under v that halve can cut: an array of
// two or more elements, or a string over 64 bytes.
func largest(v any, path string) *cut {
	var best *cut
	consider := func(c *cut) {
		if c != nil && (best == nil || c.size > best.size) {
			best = c
		}
	}
	visit := func(e any, c *cut) {
		switch x := e.(type) {
		case []any:
			if len(x) > 1 {
				c.size = encodedSize(x)
				consider(c)
			}
		case string:
			if len(x) > 64 {
				c.size = len(x)
				consider(c)
			}
		}
		consider(largest(e, c.path))
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k != "_cut" {
				visit(e, &cut{path: join(path, k), inMap: x, key: k})
			}
		}
	case []any:
		for i, e := range x {
			visit(e, &cut{path: fmt.Sprintf("%s[%d]", path, i), inList: x, index: i})
		}
	}
	return best
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func encodedSize(v any) int {
	b, _ := json.Marshal(v)
	return len(b)
}
