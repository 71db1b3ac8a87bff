package store

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/triage-dev/triage/internal/fault"
)

// Page is a window of an output's lines.
type Page struct {
	Entry      Entry    `json:"entry"`
	Offset     int      `json:"offset"`
	Lines      []string `json:"lines"`
	TotalLines int      `json:"total_lines"`
	More       bool     `json:"more"`
}

// MaxPageLines bounds one page.
const MaxPageLines = 5000

// Page returns lines [offset, offset+limit) of output id; limit <= 0 means 200.
func (s *Store) Page(ctx context.Context, id string, offset, limit int) (Page, error) {
	e, err := s.Info(ctx, id)
	if err != nil {
		return Page{}, err
	}
	if offset < 0 {
		return Page{}, fault.Usagef("offset %d: must be 0 or more", offset)
	}
	if limit <= 0 {
		limit = 200
	}
	limit = min(limit, MaxPageLines)
	p := Page{Entry: e, Offset: offset, TotalLines: e.Lines}
	if offset >= e.Lines {
		if offset == 0 {
			return p, nil
		}
		return Page{}, fault.Usagef("offset %d is past the end: output %s has %d lines (last offset %d)", offset, id, e.Lines, max(e.Lines-1, 0))
	}
	err = s.eachChunkFrom(ctx, id, offset, func(first int, data []byte) bool {
		line := first
		for len(data) > 0 && len(p.Lines) < limit {
			i := bytes.IndexByte(data, '\n')
			var l []byte
			if i < 0 {
				l, data = data, nil
			} else {
				l, data = data[:i], data[i+1:]
			}
			if line >= offset {
				p.Lines = append(p.Lines, string(l))
			}
			line++
		}
		return len(p.Lines) < limit
	})
	if err != nil {
		return Page{}, err
	}
	p.More = offset+len(p.Lines) < e.Lines
	return p, nil
}

// eachChunkFrom calls f with each chunk of id starting with the one that holds
// line, in order, until f returns false. The data slice is reused between
// calls.
func (s *Store) eachChunkFrom(ctx context.Context, id string, line int, f func(firstLine int, data []byte) bool) error {
	rows, err := s.db.QueryContext(ctx, `SELECT first_line, offset, length FROM chunks WHERE output_id=? AND seq >= coalesce(
		(SELECT seq FROM chunks WHERE output_id=? AND first_line<=? ORDER BY first_line DESC, seq DESC LIMIT 1), 0) ORDER BY seq`, id, id, line)
	if err != nil {
		return describe(err)
	}
	type chunk struct {
		first  int
		offset int64
		length int
	}
	var chunks []chunk // the index is small: a few numbers per 512 KiB
	for rows.Next() {
		var c chunk
		if err := rows.Scan(&c.first, &c.offset, &c.length); err != nil {
			rows.Close()
			return err
		}
		chunks = append(chunks, c)
	}
	rows.Close()
	if len(chunks) == 0 {
		return rows.Err()
	}
	body, err := os.Open(s.bodyPath(id))
	if err != nil {
		return fmt.Errorf("reading output %s: %w", id, err)
	}
	defer body.Close()
	var buf []byte
	for _, c := range chunks {
		if cap(buf) < c.length {
			buf = make([]byte, c.length)
		}
		data := buf[:c.length]
		if _, err := body.ReadAt(data, c.offset); err != nil {
			return fmt.Errorf("reading output %s at byte %d: %w", id, c.offset, err)
		}
		if !f(c.first, data) {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// PageWithin is Page within maxBytes of answer: lines are dropped from the
// end (each costs its length and 8 bytes of framing), never the first.
// A negative offset or limit is the caller's mistake.
func (s *Store) PageWithin(ctx context.Context, id string, offset, limit, maxBytes int) (Page, error) {
	if offset < 0 || limit < 0 {
		return Page{}, fault.Usagef("offset and limit must be 0 or more")
	}
	p, err := s.Page(ctx, id, offset, limit)
	if kept := LinesWithin(p.Lines, maxBytes); len(kept) < len(p.Lines) {
		p.Lines, p.More = kept, true
	}
	return p, err
}

// LinesWithin is the first of lines that fit in maxBytes of answer, each
// costing its length and 8 bytes of framing; the first is always kept, so
// a page that starts where this one stops skips nothing.
func LinesWithin(lines []string, maxBytes int) []string {
	size := 0
	for i, l := range lines {
		if size += len(l) + 8; size > maxBytes && i > 0 {
			return lines[:i]
		}
	}
	return lines
}
