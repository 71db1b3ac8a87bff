package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
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

// keptResult is what the result column holds for r: nil for none, r when
// it is a JSON value within MaxResultBytes, else a note of why not.
func keptResult(r json.RawMessage) any {
	switch {
	case len(r) == 0:
		return nil
	case len(r) > MaxResultBytes:
		return fmt.Sprintf(`{"_cut":["the result: %d bytes, over the store's bound of %d"]}`, len(r), MaxResultBytes)
	case !json.Valid(r):
		return `{"_cut":["the result: not valid JSON"]}`
	}
	return string(r)
}

// Result returns the structured result kept with output id (nil when none
// was: a running output, or one no call's answer went with), if the
// caller in ctx may see it.
func (s *Store) Result(ctx context.Context, id string) (json.RawMessage, error) {
	all, who := visibleTo(ctx)
	var r sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT result FROM outputs WHERE id=? AND (? OR identity=?)`, id, all, who).Scan(&r)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(id)
	}
	if err != nil || !r.Valid {
		return nil, describe(err)
	}
	return json.RawMessage(r.String), nil
}

// Progress records the producer's latest progress line (cut to
// MaxProgressBytes), shown while the output is running; Finish clears it.
// A failure is returned, not kept: progress is advisory.
func (w *Writer) Progress(ctx context.Context, line string) error {
	if w.done {
		return nil
	}
	_, err := w.s.db.ExecContext(ctx, `UPDATE outputs SET progress=?, progressed=? WHERE id=? AND finished IS NULL`,
		textclip.Prefix(line, MaxProgressBytes), time.Now().UnixNano(), w.id)
	if err != nil {
		return fmt.Errorf("recording progress of %s: %w", w.id, describe(err))
	}
	w.s.changes.Notify()
	return nil
}
