package store

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/fault"
)

// Limits of a search, refused above them as usage errors before any work:
// a search answers within a bounded size and memory whatever it is asked.
const (
	MaxPatternBytes = 4096 // longer patterns are refused
	MaxMatches      = 1000 // matches kept (all are counted)
	MaxContext      = 20   // lines of context on each side of a match
)

// Query is a regex search over one output or the recent ones.
type Query struct {
	ID         string // "" searches the Recent most recent outputs
	Pattern    string // RE2 syntax, at most MaxPatternBytes
	Context    int    // lines of context before and after each match (at most MaxContext)
	MaxMatches int    // matches kept (0: 50; at most MaxMatches); all are counted
	// MaxBytes bounds the text of the matches kept, context included (0: no
	// bound beyond MaxMatches): matches past it are counted, not kept.
	MaxBytes int
	Recent   int // outputs searched when ID is "" (0: 20)
	// TimeLimit bounds the search (0: DefaultSearchTime): past it the
	// search stops, answering what it found, and Stopped says where.
	TimeLimit time.Duration
}

// DefaultSearchTime is a search's time limit when its query sets none: RE2
// is linear, but a costly pattern over a large output can still keep a
// core busy for minutes.
const DefaultSearchTime = 30 * time.Second

// check refuses a query beyond the limits, naming the limit.
func (q *Query) check() error {
	switch {
	case q.Pattern == "":
		return fault.Usagef("pattern is empty: give an RE2 regular expression, e.g. \"error|panic\"")
	case len(q.Pattern) > MaxPatternBytes:
		return fault.Usagef("pattern is %d bytes: at most %d", len(q.Pattern), MaxPatternBytes)
	case q.MaxMatches < 0 || q.MaxMatches > MaxMatches:
		return fault.Usagef("max_matches %d: use 1 to %d (all matches are counted; narrow the pattern to see others)", q.MaxMatches, MaxMatches)
	case q.Context < 0 || q.Context > MaxContext:
		return fault.Usagef("context %d: use 0 to %d lines", q.Context, MaxContext)
	}
	if q.MaxMatches == 0 {
		q.MaxMatches = 50
	}
	return nil
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
	// Stopped says why and where the search ended before the end of the
	// text (its time limit); Total counts what was searched before.
	Stopped string `json:"stopped,omitempty"`

	keep, maxBytes int       // what may be kept
	bytes          int       // text kept so far
	deadline       time.Time // the time limit's end; zero for none
}

// full reports whether no further match may be kept.
func (r *SearchResult) full() bool {
	return len(r.Matches) >= r.keep || r.maxBytes > 0 && r.bytes >= r.maxBytes
}

// maxLineKept bounds the text of a returned line.
const maxLineKept = 2000

// What a kept match and a context line cost beyond their text where they
// are shown, for MaxBytes: the output id beside each, a line number and the
// separators of "id:line: text" or of a JSON record.
const (
	matchOverhead = 40
	lineOverhead  = 16
)

// Search finds the lines matching q.Pattern, counting each line once (like
// grep -c). Each chunk is searched as one buffer: when the pattern holds
// literals that every match must contain, bytes.Index finds the candidate
// lines and only those run the regexp; otherwise the regexp scans the chunk.
// Line numbers are computed only for the matches kept.
func (s *Store) Search(ctx context.Context, q Query) (SearchResult, error) {
	if err := q.check(); err != nil {
		return SearchResult{}, err
	}
	// (?m): ^ and $ match at line boundaries, as they would line by line.
	re, err := regexp.Compile("(?m)" + q.Pattern)
	if err != nil {
		return SearchResult{}, fault.Usagef("pattern does not compile (RE2 syntax): %w", err)
	}
	pf := newPrefilter("(?m)" + q.Pattern)
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
	limit := q.TimeLimit
	if limit <= 0 {
		limit = DefaultSearchTime
	}
	res := SearchResult{keep: q.MaxMatches, maxBytes: q.MaxBytes, deadline: time.Now().Add(limit)}
	for _, id := range ids {
		if res.Stopped != "" {
			break
		}
		res.Searched++
		if err := s.searchOne(ctx, id, re, pf, &res); err != nil {
			return SearchResult{}, err
		}
	}
	if q.Context > 0 {
		if err := s.addContexts(ctx, &res, q.Context); err != nil {
			return SearchResult{}, err
		}
	}
	res.Truncated = res.Total > len(res.Matches) || res.Stopped != ""
	return res, nil
}

// searchOne searches output id, chunk by chunk; between chunks it ends
// when ctx does (a cancelled call) and stops at the time limit.
func (s *Store) searchOne(ctx context.Context, id string, re *regexp.Regexp, pf *prefilter, res *SearchResult) error {
	var cancelled error
	err := s.eachChunkFrom(ctx, id, 0, func(first int, data []byte) bool {
		if cancelled = ctx.Err(); cancelled != nil {
			return false
		}
		line, lineStart := first, 0 // line number of data[lineStart:]
		matchLines(data, re, pf, func(start, end int) {
			res.Total++
			if res.full() {
				return
			}
			line += bytes.Count(data[lineStart:start], []byte{'\n'})
			lineStart = start
			text := clipLine(data[start:end])
			res.bytes += len(text) + len(id) + matchOverhead
			res.Matches = append(res.Matches, Match{ID: id, Line: line, Text: text})
		})
		if !res.deadline.IsZero() && time.Now().After(res.deadline) {
			res.Stopped = fmt.Sprintf("the search's time limit passed in %s after line %d: later lines and outputs were not searched",
				id, first+bytes.Count(data, []byte{'\n'}))
			return false
		}
		return true
	})
	if cancelled != nil {
		return cancelled
	}
	return err
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

// clipLine is a line as a search returns it: at most maxLineKept bytes.
func clipLine(l []byte) string {
	if len(l) > maxLineKept {
		l = l[:maxLineKept]
	}
	return string(l)
}

// clipText is clipLine for a line already read: a copy of its first
// maxLineKept bytes, so a long line is not kept alive by its prefix.
func clipText(l string) string {
	if len(l) > maxLineKept {
		return strings.Clone(l[:maxLineKept])
	}
	return l
}

// addContexts gives each kept match its n lines of context, each line once:
// a line already shown (as a match, or as context of the match before it)
// is not repeated as context of the next. Matches whose context would pass
// the byte bound are dropped (they stay counted).
func (s *Store) addContexts(ctx context.Context, res *SearchResult, n int) error {
	shown := -1 // last line shown of the previous match's output
	for i := range res.Matches {
		m := &res.Matches[i]
		if i > 0 && res.Matches[i-1].ID != m.ID {
			shown = -1
		}
		from := max(m.Line-n, shown+1, 0)
		to := m.Line + n // inclusive, stopped before the next match's line
		if i+1 < len(res.Matches) && res.Matches[i+1].ID == m.ID {
			to = min(to, res.Matches[i+1].Line-1)
		}
		if err := s.addContext(ctx, m, from, to); err != nil {
			return err
		}
		shown = max(m.Line+len(m.After), shown)
		for _, l := range append(m.Before, m.After...) {
			res.bytes += len(l) + len(m.ID) + lineOverhead
		}
		if res.maxBytes > 0 && res.bytes > res.maxBytes && i > 0 {
			res.Matches = res.Matches[:i]
			return nil
		}
	}
	return nil
}

// addContext reads lines from..to (inclusive) around m into its context.
func (s *Store) addContext(ctx context.Context, m *Match, from, to int) error {
	if to < from {
		return nil
	}
	p, err := s.Page(ctx, m.ID, from, to-from+1)
	if err != nil {
		return err
	}
	for i, l := range p.Lines {
		switch ln := from + i; {
		case ln < m.Line:
			m.Before = append(m.Before, clipText(l))
		case ln > m.Line:
			m.After = append(m.After, clipText(l))
		}
	}
	return nil
}
