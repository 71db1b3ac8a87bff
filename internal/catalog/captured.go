package catalog

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Captured is the part of a result that refers to a stored output: every tool
// whose output can be long carries it, with a bounded excerpt in its text.
type Captured struct {
	OutputID   string `json:"output_id" jsonschema:"id of the whole output in the store"`
	TotalLines int    `json:"total_lines" jsonschema:"lines in the whole output"`
	Truncated  bool   `json:"truncated" jsonschema:"the excerpt leaves lines out"`
	Next       string `json:"next,omitempty" jsonschema:"the call that shows more"`
}

// NextCall renders a tool call as `tool {"arg": value}` for hints.
func NextCall(tool string, args map[string]any) string {
	b, err := json.Marshal(args)
	if err != nil {
		return tool
	}
	return tool + " " + string(b)
}

// NewCaptured describes a stored output shown through an excerpt.
func NewCaptured(id string, totalLines int, truncated bool) Captured {
	c := Captured{OutputID: id, TotalLines: totalLines, Truncated: truncated}
	if truncated {
		c.Next = NextCall("output_get", map[string]any{"output_id": id, "offset": 0, "limit": 200}) +
			" or " + NextCall("output_search", map[string]any{"output_id": id, "pattern": "error|fatal|panic"})
	}
	return c
}

// WriteExcerpt appends an output section to a result's text: a header line,
// the excerpt, and how to see more.
func WriteExcerpt(b *strings.Builder, c Captured, excerpt string) {
	if c.TotalLines == 0 {
		fmt.Fprintf(b, "output: empty (%s)\n", c.OutputID)
		return
	}
	unit := "lines"
	if c.TotalLines == 1 {
		unit = "line"
	}
	fmt.Fprintf(b, "output (%d %s, %s):\n", c.TotalLines, unit, c.OutputID)
	b.WriteString(excerpt)
	if excerpt != "" && !strings.HasSuffix(excerpt, "\n") {
		b.WriteByte('\n')
	}
	if c.Next != "" {
		fmt.Fprintf(b, "more: %s\n", c.Next)
	}
}
