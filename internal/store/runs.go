package store

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/triage-dev/triage/internal/fault"
)

// Filter selects stored entries for a listing page (the web page's Runs).
type Filter struct {
	Statuses []string // any of these statuses ("crash", "failed", ...); none for any
	Tool     string   // exact tool name; "" for any
	Text     string   // a substring of the verdict line, argv, tool or directory
	Offset   int      // entries skipped, newest first
	Limit    int      // entries returned (0: 50; at most MaxFilterLimit)
	// AskedEngine, when set, names the tools whose engine commands (an
	// entry with Meta.Engine) a caller asked for: an engine's entry of
	// any other tool is a command that tool ran on its own (a
	// dump_report's gdb commands) and is left out.
	AskedEngine []string
}

// MaxFilterLimit bounds one page of a filtered listing.
const MaxFilterLimit = 500

// Listing is one page of a filtered listing and the count of all matches.
type Listing struct {
	Entries []Entry `json:"entries"`
	Total   int     `json:"total"`
	Offset  int     `json:"offset"`
}

// Find returns the entries the caller in ctx may see that pass f, newest
// first, one page of them, with the number of all that pass.
func (s *Store) Find(ctx context.Context, f Filter) (Listing, error) {
	if f.Offset < 0 {
		return Listing{}, fault.Usagef("offset %d: must be 0 or more", f.Offset)
	}
	if f.Limit <= 0 {
		f.Limit = 50
	}
	f.Limit = min(f.Limit, MaxFilterLimit)
	all, who := visibleTo(ctx)
	where := `(? OR identity=?) AND (?='' OR tool=?)`
	args := []any{all, who, f.Tool, f.Tool}
	if len(f.Statuses) > 0 {
		where += ` AND status IN (?` + strings.Repeat(`,?`, len(f.Statuses)-1) + `)`
		for _, st := range f.Statuses {
			args = append(args, st)
		}
	}
	if len(f.AskedEngine) > 0 {
		where += ` AND (engine='' OR tool IN (?` + strings.Repeat(`,?`, len(f.AskedEngine)-1) + `))`
		for _, t := range f.AskedEngine {
			args = append(args, t)
		}
	}
	if f.Text != "" {
		where += ` AND (instr(lower(verdict), ?) OR instr(lower(argv), ?) OR instr(lower(tool), ?) OR instr(lower(cwd), ?))`
		t := strings.ToLower(f.Text)
		args = append(args, t, t, t, t)
	}
	l := Listing{Offset: f.Offset, Entries: []Entry{}}
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM outputs WHERE `+where, args...).Scan(&l.Total); err != nil {
		return Listing{}, describe(err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+entryCols+` FROM outputs WHERE `+where+` ORDER BY created DESC LIMIT ? OFFSET ?`,
		append(args, f.Limit, f.Offset)...)
	if err != nil {
		return Listing{}, describe(err)
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return Listing{}, err
		}
		s.showStranded(&e)
		l.Entries = append(l.Entries, e)
	}
	return l, rows.Err()
}

// Tools returns the distinct tools of the entries the caller may see.
func (s *Store) Tools(ctx context.Context) ([]string, error) {
	all, who := visibleTo(ctx)
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT tool FROM outputs WHERE ? OR identity=? ORDER BY tool`, all, who)
	if err != nil {
		return nil, describe(err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// WriteRaw copies output id whole to w, chunk by chunk (never whole in
// memory), if the caller in ctx may see it.
func (s *Store) WriteRaw(ctx context.Context, id string, w io.Writer) error {
	if _, err := s.Info(ctx, id); err != nil {
		return err
	}
	var werr error
	err := s.eachChunkFrom(ctx, id, 0, func(_ int, data []byte) bool {
		_, werr = w.Write(data)
		return werr == nil
	})
	if werr != nil {
		return fmt.Errorf("writing output %s: %w", id, werr)
	}
	return err
}

// Changed returns a channel closed at the next change of the entries this
// Store writes (created, grown, finished, pruned): the web page's live
// updates wait on it. Changes by other processes sharing the file are not
// seen.
func (s *Store) Changed() <-chan struct{} { return s.changes.Wait() }

// Version summarises the state of every entry (how many, the newest
// creation, end and progress line, the lines and bytes stored): it
// differs after any change Changed tells of, by this process or another
// sharing the file, which Changed cannot see.
func (s *Store) Version(ctx context.Context) (string, error) {
	var n, created, finished, lines, bytes, progressed int64
	err := s.db.QueryRowContext(ctx, `SELECT count(*), coalesce(max(created),0), coalesce(max(finished),0), coalesce(sum(lines),0), coalesce(sum(bytes),0), coalesce(max(progressed),0) FROM outputs`).
		Scan(&n, &created, &finished, &lines, &bytes, &progressed)
	return fmt.Sprint(n, created, finished, lines, bytes, progressed), describe(err)
}
