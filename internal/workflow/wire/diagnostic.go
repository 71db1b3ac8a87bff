package wire

import "github.com/triage-dev/triage/internal/logfilter"

// Diagnostic is an error, warning or failure line of a build or test log.
type Diagnostic struct {
	Kind    string `json:"kind" jsonschema:"error, warning, note, failure, ..."`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty" jsonschema:"1-based"`
	Col     int    `json:"col,omitempty"`
	Message string `json:"message"`
	Tool    string `json:"tool,omitempty" jsonschema:"gcc, go, rustc, cmake, ld, xcodebuild, ..."`
	Count   int    `json:"count" jsonschema:"occurrences, when duplicates were folded"`
}

// DiagnosticsOf converts log diagnostics.
func DiagnosticsOf(ds []logfilter.Diagnostic) []Diagnostic {
	return list(ds, func(d logfilter.Diagnostic) Diagnostic {
		return Diagnostic{Kind: d.Kind.String(), File: d.File, Line: d.Line, Col: d.Col, Message: d.Message, Tool: d.Tool, Count: d.Count}
	})
}
