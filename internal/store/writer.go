package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/triage-dev/triage/internal/identity"
	"github.com/triage-dev/triage/internal/textclip"
)

// Writer streams one output into the store. Complete lines are committed in
// chunks as they accumulate; Flush commits what is buffered now (up to the last
// newline), Finish commits the rest and marks the output complete.
type Writer struct {
	s      *Store
	id     string
	body   *os.File
	buf    []byte // pending bytes, not yet committed
	seq    int
	lines  int   // committed lines
	bytes  int64 // committed bytes
	err    error // first write failure; sticky
	closed bool  // Close was called: no more bytes
	done   bool

	// The body file is made while the producer starts (openBodyAhead):
	// creating a file costs as much as the rest of a short call's store
	// work on some disks (0.4 ms on ext4 in a VM).
	opened   chan struct{} // closed once ahead and aheadErr are set
	ahead    *os.File
	aheadErr error
	reserved map[string]*reservation // ReserveFile's, by name; set before the producer's end
}

// Create starts a new output, owned by the identity in ctx.
func (s *Store) Create(ctx context.Context, m Meta) (*Writer, error) {
	s.recordStranded(ctx) // a new run: the space a full disk lacked may be back
	argv, _ := json.Marshal(m.Argv)
	for attempt := 0; ; attempt++ {
		id := newID()
		err := s.exec(ctx, `INSERT INTO outputs (id, tool, argv, cwd, engine, context_key, status, verdict, bytes, lines, created, complete, owner, identity)
			VALUES (?, ?, ?, ?, ?, ?, 'running', '', 0, 0, ?, 0, ?, ?)`,
			id, m.Tool, string(argv), m.Cwd, m.Engine, m.ContextKey, time.Now().UnixNano(), s.owner.token, identity.Of(ctx).ID)
		if err == nil {
			s.changes.Notify()
			// A full-size buffer comes with the first bytes: most outputs
			// are small, many are empty.
			w := &Writer{s: s, id: id}
			w.openBodyAhead()
			return w, nil
		}
		if attempt == 3 || isBusy(err) {
			return nil, fmt.Errorf("creating output: %w", describe(err))
		}
		// A clash of random ids: draw again.
	}
}

// ID is the output's id.
func (w *Writer) ID() string { return w.id }

// Lines is the number of lines committed so far.
func (w *Writer) Lines() int { return w.lines }

// Write appends p. It never blocks on the reader side; a storage failure is
// returned (and kept: later writes fail the same way).
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.done || w.closed {
		return 0, fmt.Errorf("output %s is finished", w.id)
	}
	n := len(p)
	for len(p) > 0 {
		room := ChunkSize - len(w.buf)
		if room <= 0 {
			if err := w.commit(false); err != nil {
				return n - len(p), err
			}
			continue
		}
		k := min(room, len(p))
		w.buf = append(w.buf, p[:k]...)
		p = p[k:]
	}
	if len(w.buf) >= ChunkSize {
		if err := w.commit(false); err != nil {
			return n, err
		}
	}
	return n, nil
}

// Flush commits every complete line buffered so far, so readers see it.
func (w *Writer) Flush() error {
	if w.err != nil || w.done {
		return w.err
	}
	return w.commit(false)
}

// commit writes a chunk: everything up to the last newline, or (all, or a
// buffer full of one long line) everything.
func (w *Writer) commit(all bool) error {
	cut := len(w.buf)
	if !all && cut < ChunkSize {
		cut = bytes.LastIndexByte(w.buf, '\n') + 1
	} else if !all {
		if i := bytes.LastIndexByte(w.buf, '\n'); i >= 0 {
			cut = i + 1
		}
	}
	if cut == 0 {
		return nil
	}
	data := w.buf[:cut]
	nl := bytes.Count(data, []byte{'\n'})
	if data[len(data)-1] != '\n' && all {
		nl++ // the unterminated last line
	}
	ctx := context.Background()
	err := w.writeBody(data)
	if err != nil && w.s.opts.diskLimit > 0 {
		w.s.diskFull.Store(true) // the log did not fit: the database cannot grow either
	}
	if err == nil {
		err = retryBusy(ctx, func() error { return w.recordChunk(ctx, cut, nl) })
	}
	if err != nil {
		w.err = fmt.Errorf("storing output %s: %w", w.id, describe(err))
		return w.err
	}
	w.seq++
	w.lines += nl
	w.bytes += int64(cut)
	w.buf = append(w.buf[:0], w.buf[cut:]...)
	w.s.changes.Notify()
	return nil
}

// recordChunk records the chunk of cut bytes and nl lines just written to
// the body, in one transaction.
func (w *Writer) recordChunk(ctx context.Context, cut, nl int) error {
	tx, err := w.s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err = tx.ExecContext(ctx, `INSERT INTO chunks (output_id, seq, first_line, nlines, offset, length) VALUES (?, ?, ?, ?, ?, ?)`,
		w.id, w.seq, w.lines, nl, w.bytes, cut); err != nil {
		return err
	}
	if _, err = tx.ExecContext(ctx, `UPDATE outputs SET bytes=?, lines=? WHERE id=?`, w.bytes+int64(cut), w.lines+nl, w.id); err != nil {
		return err
	}
	return tx.Commit()
}

// openBodyAhead starts making the output's body file, off the producer's
// path; writeBody waits for it. An output never written keeps an empty one.
func (w *Writer) openBodyAhead() {
	w.opened = make(chan struct{})
	w.s.making.Add(1)
	go func() {
		defer w.s.making.Done()
		defer close(w.opened)
		w.ahead, w.aheadErr = os.OpenFile(w.s.bodyPath(w.id), os.O_CREATE|os.O_EXCL|os.O_WRONLY, privateFile)
	}()
}

// writeBody appends data at the output's current end. After a failed write the
// file may hold bytes past the committed length; readers never look there.
func (w *Writer) writeBody(data []byte) error {
	if w.body == nil {
		<-w.opened
		if w.aheadErr != nil {
			return w.aheadErr
		}
		w.body = w.ahead
	}
	if lim := w.s.opts.diskLimit; lim > 0 && w.bytes+int64(len(data)) > lim {
		return &os.PathError{Op: "write", Path: w.body.Name(), Err: syscall.ENOSPC}
	}
	_, err := w.body.WriteAt(data, w.bytes)
	return err
}

// Close commits everything written, an unterminated last line too, so
// that Lines counts the whole output before Finish records how it ended;
// later writes fail. It returns the first storage failure, as Finish does.
func (w *Writer) Close() error {
	if w.err == nil && !w.done && !w.closed && len(w.buf) > 0 {
		w.commit(true)
	}
	w.closed = true
	return w.err
}

// Finish commits what remains and records how the producer ended.
func (w *Writer) Finish(ctx context.Context, f Final) error {
	if w.done {
		return nil
	}
	if w.err == nil && len(w.buf) > 0 {
		w.commit(true)
	}
	w.done = true
	r := w.placeResult(f.Result)
	w.closeBody()
	complete := 1
	status := f.Status
	if w.err != nil {
		complete = 0
		status = "incomplete"
	}
	now := time.Now()
	var err error = errDiskFull
	if !w.s.diskFull.Load() {
		err = w.s.exec(ctx, `UPDATE outputs SET status=?, verdict=?, exit_code=?, finished=?, complete=?, result=?, result_at=?, result_len=?, progress='' WHERE id=?`,
			status, f.VerdictLine, f.ExitCode, now.UnixNano(), complete, r.inRow, r.at, r.length, w.id)
	}
	if err != nil && w.s.endRow(context.WithoutCancel(ctx), w.id, now) != nil {
		w.s.strand(w.id, now) // neither end recorded (a full disk): shown incomplete, recorded later
	}
	w.s.changes.Notify()
	if w.err != nil {
		return w.err
	}
	if err != nil {
		return fmt.Errorf("finishing output %s: %w", w.id, describe(err))
	}
	return nil
}

// Abort ends the output as incomplete, keeping what was committed.
func (w *Writer) Abort() { w.AbortWith("") }

// AbortWith is Abort that keeps why as the entry's verdict line: the error
// its call answered (a program that cannot start), which the web page
// shows in place of an output that never came.
func (w *Writer) AbortWith(why string) {
	if w.done {
		return
	}
	w.done = true
	w.closeBody()
	now := time.Now()
	if w.s.endRow(context.Background(), w.id, now) != nil {
		w.s.strand(w.id, now) // a full disk: shown incomplete, recorded later
	} else if why != "" && !w.s.diskFull.Load() {
		w.s.exec(context.Background(), `UPDATE outputs SET verdict=? WHERE id=?`, textclip.String(why, maxAbortBytes), w.id) // the row is ended either way
	}
	w.s.changes.Notify()
}

// maxAbortBytes bounds an aborted entry's verdict line: an error may quote
// a client's argument whole.
const maxAbortBytes = 4 << 10

func (w *Writer) closeBody() {
	<-w.opened
	if w.ahead != nil {
		w.ahead.Close()
	}
	w.dropReserved()
}
