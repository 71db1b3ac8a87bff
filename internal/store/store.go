// Package store keeps every captured output whole, in SQLite, so a tool's
// response can carry a short excerpt and an id while the full text stays one
// call away (paged by line, or searched with RE2).
//
// Data model. One row in outputs per captured output: a short id ("o-" and 10
// hex digits), what produced it (tool, argv, cwd, engine, context key), how it
// ended (status, verdict line, exit code), its size in bytes and lines, its
// creation and finish times, and whether it is complete. The text is indexed
// in chunks: about ChunkSize bytes each, always cut after a newline, each row
// holding its first line number, byte offset and length. Chunks are written
// while the output streams, so a 1 GB output never sits in memory, and paging
// or searching reads only the chunks it needs.
//
// The bytes of a chunk live in the output's body file (bodies/ID.log beside
// the database), appended before the chunk's row is committed; SQLite holds
// every other fact. The pure-Go SQLite copies blobs at about 250 MB/s, below
// the capture rate triage promises (300 MB/s), while an append-only file is
// limited only by the disk, and ReadAt of one chunk is what paging needs.
//
// Crash safety. The database runs in WAL mode; each chunk's row is committed
// with the running totals of its output, after its bytes are in the file. If
// the writing process dies (kill -9), everything committed stays readable and
// the entry is left unfinished; Open marks entries whose writer is gone as
// "incomplete" (complete=0), knowing a writer is alive by the flock its Store
// holds (see owner.go).
//
// Results and progress. A run, build or test records with its end the
// structured answer its call gave (Final.Result: verdict, evidence, parsed
// tests, diagnostics; bounded), and while it runs its latest progress line
// (Writer.Progress), both for the web page.
//
// Identity. Each output records the identity whose call created it
// (internal/identity); Info, List, Page, Search and the cache show it to that
// identity alone (and to one that sees everything), so an output of another
// client is "not found" like an unknown id. Entries of a database made before
// identities existed belong to the server's own identity.
//
// Retention. Prune removes outputs older than Options.MaxAge, then the oldest
// until the total is under Options.MaxTotalBytes.
//
// Concurrency. A Store is safe for concurrent use, also by several processes
// sharing one file (SQLite's busy timeout serialises writers). A Writer is
// used by one goroutine.
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/triage-dev/triage/internal/notify"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/identity"
	"github.com/triage-dev/triage/internal/scratch"
)

// ChunkSize is the target size of one stored chunk.
const ChunkSize = 512 << 10

// Options configure retention.
type Options struct {
	MaxAge        time.Duration // 0: keep forever
	MaxTotalBytes int64         // 0: no limit

	diskLimit int64 // tests: body writes past this many bytes fail with ENOSPC; once a log's does, the rows' ends too (diskFull)
}

// Store is an output store.
type Store struct {
	db     *sql.DB
	path   string
	bodies string         // directory of body files
	tmp    *scratch.Owned // bodies' temporary directory, removed by Close; nil on disk
	opts   Options
	owner  ownerLock
	// tightened are the paths Open made private (see private.go).
	tightened []string

	changes notify.Changes // live listeners (Changed)
	// making counts the files writers are making in the background (a
	// body, a reserved kept file): Close waits for them, so that none is
	// made in a directory being removed.
	making sync.WaitGroup

	stranded stranded    // outputs whose end could not be recorded (stranded.go)
	diskFull atomic.Bool // tests: a log's write hit diskLimit, the rows' ends fail too
}

// ErrNotFound is returned (wrapped) for an unknown output id.
var ErrNotFound = errors.New("output not found")

// DefaultPath is $XDG_STATE_HOME/triage/triage.db, or
// ~/.local/state/triage/triage.db.
func DefaultPath() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "triage", "triage.db")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "triage", "triage.db")
	}
	return filepath.Join(home, ".local", "state", "triage", "triage.db")
}

const schema = `
CREATE TABLE IF NOT EXISTS outputs (
	id          TEXT PRIMARY KEY,
	tool        TEXT NOT NULL,
	argv        TEXT NOT NULL,
	cwd         TEXT NOT NULL,
	engine      TEXT NOT NULL,
	context_key TEXT NOT NULL,
	status      TEXT NOT NULL,
	verdict     TEXT NOT NULL,
	exit_code   INTEGER,
	bytes       INTEGER NOT NULL,
	lines       INTEGER NOT NULL,
	created     INTEGER NOT NULL,
	finished    INTEGER,
	complete    INTEGER NOT NULL,
	owner       TEXT NOT NULL DEFAULT '',
	identity    TEXT NOT NULL DEFAULT '',
	result      TEXT,
	progress    TEXT NOT NULL DEFAULT '',
	progressed  INTEGER,
	result_at   INTEGER,
	result_len  INTEGER
);
CREATE INDEX IF NOT EXISTS outputs_created ON outputs(created);
CREATE TABLE IF NOT EXISTS chunks (
	output_id  TEXT NOT NULL,
	seq        INTEGER NOT NULL,
	first_line INTEGER NOT NULL,
	nlines     INTEGER NOT NULL,
	offset     INTEGER NOT NULL,
	length     INTEGER NOT NULL,
	PRIMARY KEY (output_id, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS chunks_line ON chunks(output_id, first_line);
CREATE TABLE IF NOT EXISTS cache (
	key       TEXT PRIMARY KEY,
	output_id TEXT NOT NULL,
	created   INTEGER NOT NULL
);
`

var memSeq atomic.Int64

// Open opens (creating if needed) the store at path; ":memory:" gives a store
// that lives as long as the Store.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	var dsn string
	var tightened []string
	var err error
	if path == ":memory:" {
		// Each Open gets its own in-memory database, shared by its connections.
		dsn = fmt.Sprintf("file:triage-mem-%d-%d?mode=memory&cache=shared&_pragma=busy_timeout(10000)", os.Getpid(), memSeq.Add(1))
	} else {
		if tightened, err = makePrivate(path); err != nil {
			return nil, err
		}
		dsn = "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("opening store %s: %w", path, err)
	}
	if path == ":memory:" {
		db.SetMaxOpenConns(1) // one connection keeps the database alive and avoids shared-cache locking
	}
	s := &Store{db: db, path: path, opts: opts, tightened: tightened}
	if path == ":memory:" {
		if s.tmp, err = scratch.Dir("", "store"); err == nil {
			s.bodies = s.tmp.Path
		}
	} else {
		s.bodies = filepath.Join(filepath.Dir(path), "bodies") // made by makePrivate
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("creating store body directory: %w", err)
	}
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening store %s: %w", path, describe(err))
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("upgrading store %s: %w", path, err)
	}
	if s.owner, err = lockOwner(path); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.recover(ctx); err != nil {
		s.owner.release()
		db.Close()
		return nil, err
	}
	return s, nil
}

// Tightened lists what Open made private of a store made with wider
// modes (by an earlier version), for the caller to say so; nil for none.
func (s *Store) Tightened() []string { return s.tightened }

// Path is where the store lives.
func (s *Store) Path() string { return s.path }

// Close closes the database (and, for ":memory:", removes its bodies).
func (s *Store) Close() error {
	s.making.Wait()
	s.recordStranded(context.Background())
	err := s.db.Close()
	s.owner.release()
	s.tmp.Remove()
	return err
}

func (s *Store) bodyPath(id string) string { return filepath.Join(s.bodies, id+".log") }

// CoreDir is where the core dumps a run caused are kept, out of the user's
// tree: cores/ID beside the bodies, removed with output id when it is
// pruned (so cores live as long as the run's log). For an in-memory store
// it is inside the temporary body directory, removed by Close.
func (s *Store) CoreDir(id string) string {
	if s.tmp != nil {
		return filepath.Join(s.bodies, "cores", id)
	}
	return filepath.Join(filepath.Dir(s.bodies), "cores", id)
}

// Meta says what produced an output.
type Meta struct {
	Tool       string   `json:"tool"`
	Argv       []string `json:"argv,omitempty"`
	Cwd        string   `json:"cwd,omitempty"`
	Engine     string   `json:"engine,omitempty"`
	ContextKey string   `json:"context_key,omitempty"`
}

// Final says how an output's producer ended.
type Final struct {
	Status      string // success, failure, crash, ...
	VerdictLine string
	ExitCode    int
	// Result is the structured answer of the call that produced the
	// output (its verdict, evidence, tests, diagnostics), kept beside it
	// for the web page: at most MaxResultBytes, nil for none (see Result).
	Result json.RawMessage
}

// Entry describes a stored output.
type Entry struct {
	ID string `json:"id"`
	Meta
	Status      string    `json:"status"`
	VerdictLine string    `json:"verdict,omitempty"`
	ExitCode    *int      `json:"exit_code,omitempty"`
	Bytes       int64     `json:"bytes"`
	Lines       int       `json:"lines"`
	Created     time.Time `json:"created"`
	Finished    time.Time `json:"finished,omitzero"`
	Complete    bool      `json:"complete"`
	Progress    string    `json:"progress,omitempty"` // the latest progress line while it runs
}

func newID() string {
	var b [5]byte
	rand.Read(b[:])
	return "o-" + hex.EncodeToString(b[:])
}

// Put stores a small, already complete output.
func (s *Store) Put(ctx context.Context, m Meta, text string, f Final) (string, error) {
	w, err := s.Create(ctx, m)
	if err != nil {
		return "", err
	}
	if _, err := w.Write([]byte(text)); err != nil {
		w.Abort()
		return "", err
	}
	if err := w.Finish(ctx, f); err != nil {
		return "", err
	}
	return w.ID(), nil
}

// Info returns an output's entry. An output another identity created is
// not found (see identity), in the words of an unknown id.
func (s *Store) Info(ctx context.Context, id string) (Entry, error) {
	all, who := visibleTo(ctx)
	row := s.db.QueryRowContext(ctx, `SELECT `+entryCols+` FROM outputs WHERE id=? AND (? OR identity=?)`, id, all, who)
	e, err := scanEntry(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, notFound(id)
	}
	s.showStranded(&e)
	return e, err
}

func notFound(id string) error {
	return fault.NotFoundf("output %q not found (it may have been pruned); output_list shows recent outputs: %w", id, ErrNotFound)
}

const entryCols = `id, tool, argv, cwd, engine, context_key, status, verdict, exit_code, bytes, lines, created, finished, complete, progress`

type scanner interface{ Scan(dest ...any) error }

func scanEntry(r scanner) (Entry, error) {
	var e Entry
	var argv string
	var exit sql.NullInt64
	var created int64
	var finished sql.NullInt64
	var complete int
	if err := r.Scan(&e.ID, &e.Tool, &argv, &e.Cwd, &e.Engine, &e.ContextKey, &e.Status, &e.VerdictLine, &exit, &e.Bytes, &e.Lines, &created, &finished, &complete, &e.Progress); err != nil {
		return Entry{}, err
	}
	_ = json.Unmarshal([]byte(argv), &e.Argv)
	if exit.Valid {
		c := int(exit.Int64)
		e.ExitCode = &c
	}
	e.Created = time.Unix(0, created)
	if finished.Valid {
		e.Finished = time.Unix(0, finished.Int64)
	}
	e.Complete = complete == 1
	return e, nil
}

// List returns the most recent outputs the caller may see, newest first.
func (s *Store) List(ctx context.Context, limit int) ([]Entry, error) {
	if limit <= 0 {
		limit = 20
	}
	all, who := visibleTo(ctx)
	rows, err := s.db.QueryContext(ctx, `SELECT `+entryCols+` FROM outputs WHERE ? OR identity=? ORDER BY created DESC LIMIT ?`, all, who, limit)
	if err != nil {
		return nil, describe(err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, err
		}
		s.showStranded(&e)
		out = append(out, e)
	}
	return out, rows.Err()
}

// visibleTo returns the arguments of the "(? OR identity=?)" filter that
// leaves the outputs the caller in ctx may see.
func visibleTo(ctx context.Context) (all bool, who string) {
	c := identity.Of(ctx)
	return c.All, c.ID
}

// Visible returns a test of whether the caller in ctx may see output id,
// for what is kept beside outputs (their cores); nil when it sees them all.
func (s *Store) Visible(ctx context.Context) func(id string) bool {
	if identity.Of(ctx).All {
		return nil
	}
	return func(id string) bool {
		_, err := s.Info(ctx, id)
		return err == nil
	}
}

// Stats reports the number of outputs and their total size.
func (s *Store) Stats(ctx context.Context) (count int, bytes int64, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(bytes),0) FROM outputs`).Scan(&count, &bytes)
	return count, bytes, describe(err)
}

// describe rewrites SQLite's full-disk errors into a message that says so.
func describe(err error) error {
	if err == nil {
		return nil
	}
	if isFull(err) {
		return fmt.Errorf("the store's disk is full (free space or lower store.max_size_mb): %w", err)
	}
	return err
}

// isFull reports a full disk: ENOSPC, EFBIG (a file size limit) or SQLite's
// own word for either.
func isFull(err error) bool {
	msg := err.Error()
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EFBIG) ||
		strings.Contains(msg, "SQLITE_FULL") || strings.Contains(msg, "database or disk is full")
}
