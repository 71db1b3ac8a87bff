package store

import (
	"fmt"
	"strings"
)

// WriteMatches writes the matches as grep -n does with context: "id:line:
// text" for a match, "id:line- text" for context, "--" between groups of
// lines that do not follow each other; lines numbered from 1.
func (r SearchResult) WriteMatches(b *strings.Builder) {
	last, lastID := 0, ""
	for _, m := range r.Matches {
		line := m.Line + 1
		first := line - len(m.Before)
		if lastID != "" && (m.ID != lastID || first > last+1) {
			b.WriteString("--\n")
		}
		for j, l := range m.Before {
			fmt.Fprintf(b, "%s:%d- %s\n", m.ID, first+j, l)
		}
		fmt.Fprintf(b, "%s:%d: %s\n", m.ID, line, m.Text)
		for j, l := range m.After {
			fmt.Fprintf(b, "%s:%d- %s\n", m.ID, line+1+j, l)
		}
		last, lastID = line+len(m.After), m.ID
	}
}

// Line is the entry in one line: id, time, tool, size, argv and verdict
// (its status while there is none).
func (e Entry) Line() string {
	verdict := e.VerdictLine
	if verdict == "" {
		verdict = e.Status
	}
	return fmt.Sprintf("%s  %s  %-14s %6d lines  %s  %s", e.ID, e.Created.Format("01-02 15:04:05"), e.Tool, e.Lines, strings.Join(e.Argv, " "), verdict)
}
