package store

import (
	"bytes"
	"context"
	"regexp"

	"github.com/triage-dev/triage/internal/fault"
)

// Query is a regex search over one output or the recent ones.
type Query struct {
	ID         string // "" searches the Recent most recent outputs
	Pattern    string // RE2 syntax
	Context    int    // lines of context before and after each match (at most 20)
	MaxMatches int    // matches returned (0: 50); all are counted
	Recent     int    // outputs searched when ID is "" (0: 20)
}

// Match is one matching line.
type Match struct {
	ID     string   `json:"id"`
	Line   int      `json:"line"` // 0-based line number
	Text   string   `json:"text"`
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`
}

// SearchResult holds the kept matches and the count of all of them.
type SearchResult struct {
	Matches   []Match `json:"matches"`
	Total     int     `json:"total"`     // matching lines, including those past MaxMatches
	Truncated bool    `json:"truncated"` // Total > len(Matches)
	Searched  int     `json:"searched"`  // outputs searched
}

// maxLineKept bounds the text of a returned line.
const maxLineKept = 2000

// Search finds the lines matching q.Pattern, counting each line once (like
// grep -c). Each chunk is searched as one buffer: when the pattern holds
// literals that every match must contain, bytes.Index finds the candidate
// lines and only those run the regexp; otherwise the regexp scans the chunk.
// Line numbers are computed only for the matches kept.
func (s *Store) Search(ctx context.Context, q Query) (SearchResult, error) {
	// (?m): ^ and $ match at line boundaries, as they would line by line.
	re, err := regexp.Compile("(?m)" + q.Pattern)
	if err != nil {
		return SearchResult{}, fault.Usagef("pattern %q does not compile (RE2 syntax): %w", q.Pattern, err)
	}
	pf := newPrefilter("(?m)" + q.Pattern)
	if q.MaxMatches <= 0 {
		q.MaxMatches = 50
	}
	q.Context = min(max(q.Context, 0), 20)
	var ids []string
	if q.ID != "" {
		if _, err := s.Info(ctx, q.ID); err != nil {
			return SearchResult{}, err
		}
		ids = []string{q.ID}
	} else {
		if q.Recent <= 0 {
			q.Recent = 20
		}
		entries, err := s.List(ctx, q.Recent)
		if err != nil {
			return SearchResult{}, err
		}
		for _, e := range entries {
			ids = append(ids, e.ID)
		}
	}
	var res SearchResult
	for _, id := range ids {
		res.Searched++
		if err := s.searchOne(ctx, id, re, pf, q.MaxMatches, &res); err != nil {
			return SearchResult{}, err
		}
	}
	res.Truncated = res.Total > len(res.Matches)
	if q.Context > 0 {
		for i := range res.Matches {
			if err := s.addContext(ctx, &res.Matches[i], q.Context); err != nil {
				return SearchResult{}, err
			}
		}
	}
	return res, nil
}

func (s *Store) searchOne(ctx context.Context, id string, re *regexp.Regexp, pf *prefilter, keep int, res *SearchResult) error {
	return s.eachChunkFrom(ctx, id, 0, func(first int, data []byte) bool {
		line, lineStart := first, 0 // line number of data[lineStart:]
		matchLines(data, re, pf, func(start, end int) {
			res.Total++
			if len(res.Matches) >= keep {
				return
			}
			line += bytes.Count(data[lineStart:start], []byte{'\n'})
			lineStart = start
			text := data[start:end]
			if len(text) > maxLineKept {
				text = text[:maxLineKept]
			}
			res.Matches = append(res.Matches, Match{ID: id, Line: line, Text: string(text)})
		})
		return true
	})
}

// matchLines calls f, in order, with the bounds of each line of data that re
// matches on its own.
func matchLines(data []byte, re *regexp.Regexp, pf *prefilter, f func(start, end int)) {
	if pf != nil && pf.usable(data) {
		pf.candidates(data, func(start, end int) bool {
			if re.Match(data[start:end]) {
				f(start, end)
			}
			return true
		})
		return
	}
	for pos := 0; pos < len(data); {
		loc := re.FindIndex(data[pos:])
		if loc == nil {
			return
		}
		at := pos + loc[0]
		if at == len(data) && data[at-1] == '\n' {
			return // an empty match after the last newline is no line
		}
		start := bytes.LastIndexByte(data[pos:at], '\n') + 1 + pos
		end := lineEnd(data, at)
		if pos+loc[1] > end {
			// The match ran across a newline (\s, [^x]). Lines match one at
			// a time, and scanning on from each line could rescan the rest
			// of the chunk for every line: match the rest line by line.
			eachLine(data, start, re, f)
			return
		}
		f(start, end)
		pos = end + 1 // one count per line, like grep -c
	}
}

// eachLine matches re against each line of data from start on.
func eachLine(data []byte, start int, re *regexp.Regexp, f func(start, end int)) {
	for start < len(data) {
		end := lineEnd(data, start)
		if re.Match(data[start:end]) {
			f(start, end)
		}
		start = end + 1
	}
}

// lineEnd is the index of the newline ending the line holding data[at], or
// len(data).
func lineEnd(data []byte, at int) int {
	if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
		return at + i
	}
	return len(data)
}

func (s *Store) addContext(ctx context.Context, m *Match, n int) error {
	from := max(m.Line-n, 0)
	p, err := s.Page(ctx, m.ID, from, m.Line-from+n+1)
	if err != nil {
		return err
	}
	for i, l := range p.Lines {
		switch ln := from + i; {
		case ln < m.Line:
			m.Before = append(m.Before, l)
		case ln > m.Line:
			m.After = append(m.After, l)
		}
	}
	return nil
}
