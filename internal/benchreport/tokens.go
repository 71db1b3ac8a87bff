package benchreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// ToolSize is what one tool costs in tools/list, in bytes as served.
type ToolSize struct {
	Name, Workflow            string
	Description, Input, Total int
	Output                    int // output schema; 0 when the tool has none
}

// Tokens estimates the tokens of n bytes of JSON (bytes/4).
func Tokens(n int) int { return (n + 3) / 4 }

// Budget is the size of one tools/list response.
type Budget struct {
	Bytes int // the whole JSON-RPC response line
	Tools []ToolSize
}

// ParseToolsList measures a tools/list JSON-RPC response as it came over the
// wire: the whole response and each tool's own JSON.
func ParseToolsList(resp []byte) (Budget, error) {
	var msg struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(resp, &msg); err != nil {
		return Budget{}, fmt.Errorf("tools/list response: %w", err)
	}
	if len(msg.Error) > 0 {
		return Budget{}, fmt.Errorf("tools/list: %s", msg.Error)
	}
	tools, err := measureTools(msg.Result.Tools)
	if err != nil {
		return Budget{}, err
	}
	return Budget{Bytes: len(bytes.TrimSpace(resp)), Tools: tools}, nil
}

func measureTools(raws []json.RawMessage) ([]ToolSize, error) {
	var out []ToolSize
	for _, raw := range raws {
		var t struct {
			Name         string          `json:"name"`
			Description  json.RawMessage `json:"description"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("tool in tools/list: %w", err)
		}
		out = append(out, ToolSize{Name: t.Name, Description: len(t.Description),
			Input: len(t.InputSchema), Output: len(t.OutputSchema), Total: len(raw)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("tools/list listed no tools")
	}
	return out, nil
}

// ParseToolsJSON measures each tool of `triage tools --json` output (an
// indented array of tools) compacted, as tools/list would send it.
func ParseToolsJSON(data []byte) ([]ToolSize, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, fmt.Errorf("triage tools --json: %w", err)
	}
	for i, raw := range raws {
		var c bytes.Buffer
		if err := json.Compact(&c, raw); err != nil {
			return nil, err
		}
		raws[i] = c.Bytes()
	}
	return measureTools(raws)
}

// WithTools is the budget of a tools/list response like served's, listing
// tools instead: the envelope is what served has beyond its tools.
func WithTools(served Budget, tools []ToolSize) Budget {
	size := func(ts []ToolSize) int {
		n := max(0, len(ts)-1) // commas
		for _, t := range ts {
			n += t.Total
		}
		return n
	}
	return Budget{Bytes: served.Bytes - size(served.Tools) + size(tools), Tools: tools}
}

// ParseWorkflows reads the workflow of each tool from `triage tools` text
// output: a workflow line "id — description", then its tools indented.
func ParseWorkflows(text string) map[string]string {
	m := map[string]string{}
	var wf string
	for line := range strings.SplitSeq(text, "\n") {
		switch {
		case strings.HasPrefix(line, "  "):
			if f := strings.Fields(line); len(f) > 0 && wf != "" {
				m[f[0]] = wf
			}
		case line != "":
			wf, _, _ = strings.Cut(line, " ")
		}
	}
	return m
}
