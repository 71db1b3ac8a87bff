package wire

import (
	"time"

	"github.com/triage-dev/triage/internal/store"
)

// Match is one matching line of a stored output, with its context.
type Match struct {
	ID     string   `json:"id" jsonschema:"the output"`
	Line   int      `json:"line" jsonschema:"1-based line number"`
	Text   string   `json:"text"`
	Before []string `json:"before,omitempty" jsonschema:"context lines before"`
	After  []string `json:"after,omitempty" jsonschema:"context lines after"`
}

// Output describes one stored output.
type Output struct {
	ID          string    `json:"id"`
	Tool        string    `json:"tool" jsonschema:"the tool that produced it"`
	Argv        []string  `json:"argv,omitempty" jsonschema:"what ran"`
	Cwd         string    `json:"cwd,omitempty"`
	Engine      string    `json:"engine,omitempty" jsonschema:"the dump engine, for dump_command outputs"`
	ContextKey  string    `json:"context_key,omitempty" jsonschema:"the engine context it was produced in"`
	Status      string    `json:"status" jsonschema:"the verdict status, or running"`
	VerdictLine string    `json:"verdict,omitempty"`
	ExitCode    *int      `json:"exit_code,omitempty"`
	Bytes       int64     `json:"bytes"`
	Lines       int       `json:"lines"`
	Created     time.Time `json:"created"`
	Finished    time.Time `json:"finished,omitzero"`
	Complete    bool      `json:"complete" jsonschema:"the whole output is stored"`
}

// MatchesOf converts search matches.
func MatchesOf(ms []store.Match) []Match {
	return list(ms, func(m store.Match) Match {
		return Match{ID: m.ID, Line: m.Line + 1, Text: m.Text, Before: m.Before, After: m.After}
	})
}

// OutputsOf converts stored-output entries.
func OutputsOf(es []store.Entry) []Output {
	return list(es, func(e store.Entry) Output {
		return Output{
			ID: e.ID, Tool: e.Tool, Argv: e.Argv, Cwd: e.Cwd, Engine: e.Engine, ContextKey: e.ContextKey,
			Status: e.Status, VerdictLine: e.VerdictLine, ExitCode: e.ExitCode, Bytes: e.Bytes, Lines: e.Lines,
			Created: e.Created, Finished: e.Finished, Complete: e.Complete,
		}
	})
}
