package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"time"
)

// Prune removes outputs past the retention limits and returns how many.
// Outputs still being written are never removed.
func (s *Store) Prune(ctx context.Context, now time.Time) (int, error) {
	removed := 0
	gone := map[string]bool{} // the outputs removed, whose kept files go last
	defer func() { s.removeKept(gone) }()
	if s.opts.MaxAge > 0 {
		rows, err := s.ids(ctx, `SELECT id FROM outputs WHERE created < ? AND finished IS NOT NULL`, now.Add(-s.opts.MaxAge).UnixNano())
		if err != nil {
			return 0, err
		}
		for _, id := range rows {
			if err := s.remove(ctx, id); err != nil {
				return removed, err
			}
			gone[id] = true
			removed++
		}
	}
	if s.opts.MaxTotalBytes > 0 {
		for {
			_, total, err := s.Stats(ctx)
			if err != nil || total <= s.opts.MaxTotalBytes {
				return removed, err
			}
			var id string
			err = s.db.QueryRowContext(ctx, `SELECT id FROM outputs WHERE finished IS NOT NULL ORDER BY created LIMIT 1`).Scan(&id)
			if errors.Is(err, sql.ErrNoRows) {
				return removed, nil
			}
			if err != nil {
				return removed, describe(err)
			}
			if err := s.remove(ctx, id); err != nil {
				return removed, err
			}
			gone[id] = true
			removed++
		}
	}
	return removed, nil
}

func (s *Store) ids(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, describe(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

func (s *Store) remove(ctx context.Context, id string) error {
	err := retryBusy(ctx, func() error {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		for _, q := range []string{`DELETE FROM chunks WHERE output_id=?`, `DELETE FROM cache WHERE output_id=?`, `DELETE FROM outputs WHERE id=?`} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return err
			}
		}
		return tx.Commit()
	})
	if err != nil {
		return describe(err)
	}
	os.Remove(s.bodyPath(id))
	os.RemoveAll(s.CoreDir(id))
	s.changes.Notify()
	return nil
}

// CacheGet returns the output cached under key, if it still exists and the
// caller in ctx may see it.
func (s *Store) CacheGet(ctx context.Context, key string) (string, bool, error) {
	var id string
	all, who := visibleTo(ctx)
	err := s.db.QueryRowContext(ctx, `SELECT c.output_id FROM cache c JOIN outputs o ON o.id = c.output_id WHERE c.key=? AND (? OR o.identity=?)`, key, all, who).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, describe(err)
	}
	return id, true, nil
}

// CachePut records output id under key, replacing an older entry.
func (s *Store) CachePut(ctx context.Context, key, id string) error {
	err := s.exec(ctx, `INSERT INTO cache (key, output_id, created) VALUES (?, ?, ?)
		ON CONFLICT(key) DO UPDATE SET output_id=excluded.output_id, created=excluded.created`, key, id, time.Now().UnixNano())
	return describe(err)
}

// CacheDelete forgets key.
func (s *Store) CacheDelete(ctx context.Context, key string) error {
	err := s.exec(ctx, `DELETE FROM cache WHERE key=?`, key)
	return describe(err)
}
