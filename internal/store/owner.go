package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Liveness of writers. Each Store opened on a file holds an exclusive flock
// on owners/TOKEN beside the database for as long as it is open, and every
// output it creates records TOKEN. The kernel drops the lock when the process
// dies, however it dies, so on Open an unfinished output whose owner's lock
// can be taken was left by a dead process. Unlike a pid, a lock cannot be
// inherited by an unrelated process that reuses the number (a server that is
// pid 1 in a container is pid 1 after every restart).

// ownerLock is the lock a Store holds while it is open.
type ownerLock struct {
	token string
	file  *os.File // nil for ":memory:"
}

func ownersDir(dbPath string) string { return filepath.Join(filepath.Dir(dbPath), "owners") }

// lockOwner creates and locks this Store's owner file.
func lockOwner(dbPath string) (ownerLock, error) {
	var b [8]byte
	rand.Read(b[:])
	o := ownerLock{token: hex.EncodeToString(b[:])}
	if dbPath == ":memory:" {
		return o, nil
	}
	dir := ownersDir(dbPath)
	if err := os.MkdirAll(dir, privateDir); err != nil {
		return o, fmt.Errorf("creating store owner directory: %w", err)
	}
	// Locked under a hidden name, then renamed: a sweep by another Open
	// never sees the file unlocked.
	hidden := filepath.Join(dir, "."+o.token)
	f, err := os.OpenFile(hidden, os.O_CREATE|os.O_EXCL|os.O_RDWR, privateFile)
	if err != nil {
		return o, fmt.Errorf("creating store owner lock: %w", err)
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		err = os.Rename(hidden, filepath.Join(dir, o.token))
	}
	if err != nil {
		f.Close()
		os.Remove(hidden)
		return o, fmt.Errorf("locking store owner file: %w", err)
	}
	o.file = f
	return o, nil
}

// release unlocks and removes the owner file.
func (o ownerLock) release() {
	if o.file != nil {
		os.Remove(filepath.Join(filepath.Dir(o.file.Name()), o.token))
		o.file.Close() // closing drops the flock
	}
}

// liveOwners returns the tokens of the Stores open on dbPath now, other than
// this one's, and removes the owner files of closed or dead ones.
func liveOwners(dbPath, self string) map[string]bool {
	live := map[string]bool{}
	if dbPath == ":memory:" {
		return live
	}
	dir := ownersDir(dbPath)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() == self || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		name := filepath.Join(dir, e.Name())
		f, err := os.OpenFile(name, os.O_RDWR, 0)
		if err != nil {
			continue // gone meanwhile, or not ours to judge
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			live[e.Name()] = true
		} else {
			os.Remove(name)
		}
		f.Close()
	}
	return live
}

// recover marks outputs whose writer is gone as incomplete.
func (s *Store) recover(ctx context.Context) error {
	live := liveOwners(s.path, s.owner.token)
	rows, err := s.db.QueryContext(ctx, `SELECT id, owner FROM outputs WHERE finished IS NULL`)
	if err != nil {
		return fmt.Errorf("reading store: %w", describe(err))
	}
	var dead []string
	for rows.Next() {
		var id, owner string
		if err := rows.Scan(&id, &owner); err != nil {
			rows.Close()
			return err
		}
		if owner != s.owner.token && !live[owner] {
			dead = append(dead, id)
		}
	}
	rows.Close()
	for _, id := range dead {
		if _, err := s.db.ExecContext(ctx, `UPDATE outputs SET status='incomplete', finished=?, complete=0 WHERE id=?`, time.Now().UnixNano(), id); err != nil {
			if isFull(err) {
				// Bookkeeping only: on a full disk the store must still
				// open so that what it holds can be read. A later Open
				// marks these.
				return nil
			}
			return fmt.Errorf("marking %s incomplete: %w", id, describe(err))
		}
	}
	return nil
}

// migrate brings a database made by an earlier version up to the schema.
func (s *Store) migrate(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT name FROM pragma_table_info('outputs')`)
	if err != nil {
		return describe(err)
	}
	cols := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		cols[name] = true
	}
	rows.Close()
	// Columns later versions added, each with a default an older entry
	// takes: earlier outputs are the server's own identity's, with no result
	// or progress kept.
	for _, c := range []struct{ name, def string }{
		{"owner", "TEXT NOT NULL DEFAULT ''"},
		{"identity", "TEXT NOT NULL DEFAULT ''"},
		{"result", "TEXT"},
		{"progress", "TEXT NOT NULL DEFAULT ''"},
		{"progressed", "INTEGER"},
		{"result_at", "INTEGER"},
		{"result_len", "INTEGER"},
	} {
		if cols[c.name] {
			continue
		}
		if _, err := s.db.ExecContext(ctx, `ALTER TABLE outputs ADD COLUMN `+c.name+` `+c.def); err != nil {
			return describe(err)
		}
	}
	if cols["owner_pid"] { // NOT NULL without a default: inserts would fail
		if _, err := s.db.ExecContext(ctx, `ALTER TABLE outputs DROP COLUMN owner_pid`); err != nil {
			return describe(err)
		}
	}
	return nil
}
