package postmortem

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/identity"
	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/scratch"
)

// Errors of the Manager callers branch on.
var (
	// ErrNoSession: no dump is open and no session id was given.
	ErrNoSession = errors.New("no dump session")
	// ErrUnknownSession: the session id names no open session.
	ErrUnknownSession = errors.New("unknown dump session")
	// ErrBadTarget: the files given do not make a dump session (missing,
	// a process core given as vmcore or the reverse, a mismatched vmlinux,
	// a truncated dump). The message says what to pass instead.
	ErrBadTarget = errors.New("cannot open dump")
)

// Options configure a Manager.
type Options struct {
	// WorkRoot is where session work directories are made (default: the
	// system temporary directory).
	WorkRoot string
	// StartupTimeout bounds an engine's start (default 120s: crash on a big
	// dump takes a while).
	StartupTimeout time.Duration
	// CommandTimeout bounds one command when the call gives none (default 60s).
	CommandTimeout time.Duration
	// Remote holds the ssh connections of remote sessions (Target.SSHHost);
	// nil: one of the Manager's own, closed by CloseAll.
	Remote *remote.Pool
	// OnChange, when set, is told when a session opens or closes and when
	// a command is recorded in its history (the web page's live updates).
	// It must not block nor call the Manager.
	OnChange func()
}

// Manager owns the open dump sessions. Opening a dump that is already open
// (same ContentHash, whatever its path) returns the same session and counts
// a reference; Close releases one, and the last one kills the engines.
// A Manager is safe for concurrent use.
//
// A session belongs to the identity that opened it (the caller in the
// context, internal/identity): dumps are shared per identity, each identity's
// current session is the last it opened, and to another identity a session
// is unknown, in the words an id that never existed gets.
type Manager struct {
	opts Options

	mu       sync.Mutex
	sessions map[string]*Session // by ID
	order    []string            // open order; the last is the current session
	closed   bool

	ownRemote bool // opts.Remote is the Manager's, closed by CloseAll
}

// NewManager returns a Manager with no sessions.
func NewManager(opts Options) *Manager {
	if opts.StartupTimeout <= 0 {
		opts.StartupTimeout = 120 * time.Second
	}
	if opts.CommandTimeout <= 0 {
		opts.CommandTimeout = 60 * time.Second
	}
	own := opts.Remote == nil
	if own {
		opts.Remote = remote.NewPool(remote.Options{})
	}
	return &Manager{opts: opts, sessions: map[string]*Session{}, ownRemote: own}
}

// Host is the connection to a remote session's host (connecting when
// there is none), for work beside the session's engines.
func (m *Manager) Host(ctx context.Context, host string) (*remote.Conn, error) {
	return m.opts.Remote.Conn(ctx, host)
}

// Open validates t and returns its session, new or shared. reused reports
// that the dump was already open. Engines start on their first command.
// Local dumps are inspected first: a process core given as vmcore (or the
// reverse), a vmlinux whose build ID differs from the dump's, or an ELF
// dump shorter than its segments is an error wrapping ErrBadTarget. A
// remote dump's files must exist on its host (ErrBadTarget otherwise); the
// connection to the host is made here (remote.ErrConnect when it cannot be).
func (m *Manager) Open(ctx context.Context, t Target) (s *Session, reused bool, err error) {
	var info *DumpInfo
	var hash string
	if t.SSHHost == "" {
		if info, hash, err = inspectTarget(t); err != nil {
			return nil, false, err
		}
	} else {
		if err := t.validateRemote(); err != nil {
			return nil, false, err
		}
		if hash, err = remoteIdentity(ctx, m.opts.Remote, t); err != nil {
			return nil, false, err
		}
	}
	owner := identity.Of(ctx).ID
	id := sessionID(owner, hash)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, false, errors.New("opening dump: manager closed")
	}
	if s := m.sessions[id]; s != nil {
		s.mu.Lock()
		s.refs++
		s.mu.Unlock()
		m.touch(id)
		return s, true, nil
	}
	work, err := scratch.Dir(m.opts.WorkRoot, "dump-"+id)
	if err != nil {
		return nil, false, fmt.Errorf("opening dump: work directory: %w", err)
	}
	router := Router{Kernel: t.Kernel}
	if info != nil {
		router.Default = info.DefaultEngine()
	}
	s = &Session{
		ID: id, Hash: hash, Target: t, Dump: info, Router: router, Opened: time.Now(), WorkDir: work.Path, work: work, owner: owner,
		startupTimeout: m.opts.StartupTimeout, commandTimeout: m.opts.CommandTimeout, remote: m.opts.Remote,
		refs: 1, engines: map[Engine]*engineState{}, onChange: m.opts.OnChange,
	}
	m.sessions[id] = s
	m.touch(id)
	m.changed()
	return s, false, nil
}

// sessionID names the session of the dump whose content hash is hash, for
// owner: the server's own identity keeps the plain hash prefix, another's
// mixes its identity in, so two identities' sessions of one dump differ and
// neither id tells of the other.
func sessionID(owner, hash string) string {
	if owner == "" {
		return "dump-" + hash[:12]
	}
	sum := sha256.Sum256([]byte(owner + "\x00" + hash))
	return "dump-" + hex.EncodeToString(sum[:6])
}

// touch makes id the current session of its owner; m.mu is held.
func (m *Manager) touch(id string) {
	m.order = slices.DeleteFunc(m.order, func(x string) bool { return x == id })
	m.order = append(m.order, id)
}

// Get returns the session id, or the caller's current (most recently
// opened) one when id is empty.
func (m *Manager) Get(ctx context.Context, id string) (*Session, error) {
	who := identity.Of(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	if id == "" {
		for i := len(m.order) - 1; i >= 0 && id == ""; i-- {
			if m.sessions[m.order[i]].owner == who.ID {
				id = m.order[i]
			}
		}
		if id == "" {
			return nil, ErrNoSession
		}
	}
	s := m.sessions[id]
	if s == nil || !who.Sees(s.owner) {
		return nil, fmt.Errorf("%w %q", ErrUnknownSession, id)
	}
	return s, nil
}

// List returns the open sessions the caller may see, oldest first.
func (m *Manager) List(ctx context.Context) []*Session {
	who := identity.Of(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Session, 0, len(m.order))
	for _, id := range m.order {
		if s := m.sessions[id]; who.Sees(s.owner) {
			out = append(out, s)
		}
	}
	return out
}

// Close releases one reference to session id (the caller's current one
// when empty). The last release kills the session's engines (their whole
// process groups) and removes its work directory; remaining is the count
// left.
func (m *Manager) Close(ctx context.Context, id string) (s *Session, remaining int, err error) {
	s, err = m.Get(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	m.mu.Lock()
	s.mu.Lock()
	s.refs--
	remaining = s.refs
	s.mu.Unlock()
	if remaining > 0 {
		m.mu.Unlock()
		return s, remaining, nil
	}
	delete(m.sessions, s.ID)
	m.order = slices.DeleteFunc(m.order, func(x string) bool { return x == s.ID })
	m.mu.Unlock()
	defer m.changed()
	return s, 0, s.shutdown()
}

// changed tells Options.OnChange.
func (m *Manager) changed() {
	if m.opts.OnChange != nil {
		m.opts.OnChange()
	}
}

// CloseAll disposes of every session whatever its references, and refuses
// later opens. For shutdown.
func (m *Manager) CloseAll() error {
	m.mu.Lock()
	m.closed = true
	sessions := m.sessions
	m.sessions, m.order = map[string]*Session{}, nil
	m.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, 0, len(sessions))
	var emu sync.Mutex
	for _, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.shutdown(); err != nil {
				emu.Lock()
				errs = append(errs, err)
				emu.Unlock()
			}
		}()
	}
	wg.Wait()
	if m.ownRemote {
		errs = append(errs, m.opts.Remote.Close())
	}
	return errors.Join(errs...)
}

// inspectTarget checks a local target and returns what the dump is and its
// content hash.
func inspectTarget(t Target) (*DumpInfo, string, error) {
	dump, other := t.Vmcore, t.Vmlinux
	if !t.Kernel {
		dump, other = t.Core, t.Program
	}
	if err := t.validateRemote(); err != nil {
		return nil, "", err
	}
	for _, p := range []string{dump, other} {
		f, err := os.Open(p)
		if err != nil {
			return nil, "", fmt.Errorf("%w: %v", ErrBadTarget, err)
		}
		f.Close()
	}
	info, err := Inspect(dump)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %v", ErrBadTarget, err)
	}
	switch {
	case t.Kernel && !info.Kernel:
		return nil, "", fmt.Errorf("%w: %s is a process core, not a kernel dump: pass it as core, with program", ErrBadTarget, dump)
	case !t.Kernel && info.Kernel:
		return nil, "", fmt.Errorf("%w: %s is a kernel dump (%s), not a process core: pass it as vmcore, with vmlinux", ErrBadTarget, dump, info.Kind)
	}
	if err := CheckTruncated(dump); err != nil {
		return nil, "", fmt.Errorf("%w: %v", ErrBadTarget, err)
	}
	if t.Kernel {
		if err := CheckVmlinux(info, t.Vmlinux); err != nil {
			return nil, "", fmt.Errorf("%w: %v", ErrBadTarget, err)
		}
	}
	hash, err := ContentHash(dump)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %v", ErrBadTarget, err)
	}
	return info, hash, nil
}

// validateRemote checks what can be checked without the files.
func (t Target) validateRemote() error {
	switch {
	case t.Kernel && (t.Vmcore == "" || t.Vmlinux == ""):
		return fmt.Errorf("%w: a kernel dump needs vmcore and vmlinux", ErrBadTarget)
	case !t.Kernel && (t.Core == "" || t.Program == ""):
		return fmt.Errorf("%w: a process core needs core and program (the executable that dumped it)", ErrBadTarget)
	}
	return nil
}
