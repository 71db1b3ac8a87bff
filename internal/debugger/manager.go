package debugger

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/identity"
)

// DefaultBackend is used when nothing else chooses one.
const DefaultBackend = "dap"

// ResolveBackend picks a backend name: explicit, then the session default,
// then config, then DefaultBackend. "lldb-cli" is accepted for "lldb".
func ResolveBackend(explicit, sessionDefault, config string) string {
	for _, name := range []string{explicit, sessionDefault, config} {
		if name = strings.TrimSpace(name); name != "" {
			if name == "lldb-cli" {
				return "lldb"
			}
			return name
		}
	}
	return DefaultBackend
}

// SessionInfo describes a session.
type SessionInfo struct {
	ID       string    `json:"id"`
	Backend  string    `json:"backend"`
	Target   string    `json:"target"` // program path
	Pid      int       `json:"pid,omitempty"`
	Core     string    `json:"core,omitempty"`
	SSHHost  string    `json:"ssh_host,omitempty"` // where the debugger runs; "" here
	Created  time.Time `json:"created"`
	LastUsed time.Time `json:"last_used"`
	Current  bool      `json:"current"`
	State    State     `json:"state"`
}

type session struct {
	info    SessionInfo // guarded by Manager.mu
	owner   string      // the identity that created it
	backend Backend
	dir     string // the session's working directory, removed when it ends
	seen    seen   // kept from the calls through the Manager; guarded by Manager.mu
	gate    gate   // the calls under way and the Manager's own look; guarded by Manager.mu
}

// dispose ends the backend and removes the session's directory, so that a
// long-lived server does not collect one per session. A directory that
// cannot be removed (a debugger still exiting writes into it) is no reason
// to fail the detach that ended the session.
func (s *session) dispose() error {
	err := s.backend.Dispose()
	_ = os.RemoveAll(s.dir)
	return err
}

// Options configure a Manager.
type Options struct {
	// Backends maps selection names ("dap", "lldb") to factories.
	Backends map[string]Factory
	// Default is the configured backend (the "config" step of ResolveBackend).
	Default string
	// Dir holds one subdirectory per session; "" uses a temporary directory.
	Dir    string
	Limits Limits
	// OnChange, when set, is told after a session is created, ended, or
	// moved by a call through the Manager (a stop, a breakpoint), after a
	// change a Notifier backend tells of, and when the Manager fetched a
	// stop's frames itself: the web page's live updates. It must not
	// block; it may be called from several goroutines at once.
	OnChange func()
}

// Manager owns debug sessions: it creates them through a backend factory,
// tracks the current one, and disposes of them. Safe for concurrent use; mu
// is never held across a backend call, so a slow debugger never blocks
// another session. A session's calls and the Manager's own look at a
// stop's frames are ordered by the session's gate (look.go); the looks
// that run on goroutines of their own are waited for by Close.
//
// A session belongs to the identity whose call created it (the caller in
// the context, internal/identity); each identity has its own current
// session, and to another identity a session is unknown, in the words an
// id that never existed gets.
type Manager struct {
	opts Options

	mu       sync.Mutex
	sessions map[string]*session
	current  map[string]string // the current session of each identity
	nextID   int
	closed   bool           // Close began: no more looks start
	looks    sync.WaitGroup // the looks under way on their own goroutines
	// waitsForLook, when set (tests), is told when a call waits for a
	// look to end; guarded by mu.
	waitsForLook func()
}

// NewManager returns a Manager with no sessions.
func NewManager(opts Options) *Manager {
	opts.Limits = opts.Limits.WithDefaults()
	return &Manager{opts: opts, sessions: make(map[string]*session), current: make(map[string]string)}
}

// Launch starts spec.Program under a new session of the named backend ("" for
// the configured default) and makes it current.
func (m *Manager) Launch(ctx context.Context, backend string, spec LaunchSpec) (SessionInfo, error) {
	return m.create(ctx, backend, SessionInfo{Target: spec.Program, SSHHost: spec.SSHHost}, func(b Backend) (State, error) {
		return b.Launch(ctx, spec)
	})
}

// Attach attaches a new session to a running process.
func (m *Manager) Attach(ctx context.Context, backend string, spec AttachSpec) (SessionInfo, error) {
	return m.create(ctx, backend, SessionInfo{Target: spec.Program, Pid: spec.Pid, SSHHost: spec.SSHHost}, func(b Backend) (State, error) {
		return b.Attach(ctx, spec)
	})
}

// LoadCore opens a core file in a new session.
func (m *Manager) LoadCore(ctx context.Context, backend string, spec CoreSpec) (SessionInfo, error) {
	return m.create(ctx, backend, SessionInfo{Target: spec.Program, Core: spec.Core, SSHHost: spec.SSHHost}, func(b Backend) (State, error) {
		return b.LoadCore(ctx, spec)
	})
}

// Numbers, when set, numbers new sessions in place of each manager's own
// count: the CLI's daemon draws the numbers from a count all its user's
// daemons share, so that an id names one session across them. Set once,
// before any manager creates a session.
var Numbers func() int

func (m *Manager) create(ctx context.Context, name string, info SessionInfo, start func(Backend) (State, error)) (SessionInfo, error) {
	name = ResolveBackend(name, "", m.opts.Default)
	factory, ok := m.opts.Backends[name]
	if !ok {
		return SessionInfo{}, fmt.Errorf("%w %q (have %s)", ErrUnknownBackend, name, strings.Join(m.backendNames(), ", "))
	}
	m.mu.Lock()
	m.nextID++
	n := m.nextID
	if Numbers != nil {
		n = Numbers()
	}
	id := "dbg-" + strconv.Itoa(n)
	m.mu.Unlock()

	dir, err := m.sessionDir(id)
	if err != nil {
		return SessionInfo{}, err
	}
	b, err := factory(Config{Dir: dir, Limits: m.opts.Limits})
	if err != nil {
		os.RemoveAll(dir)
		return SessionInfo{}, fmt.Errorf("creating %s backend: %w", name, err)
	}
	st, err := start(b)
	if err != nil {
		_ = (&session{backend: b, dir: dir}).dispose()
		return SessionInfo{}, err
	}
	now := time.Now()
	info.ID, info.Backend, info.Created, info.LastUsed, info.State = id, name, now, now, st
	if st.Pid != 0 {
		info.Pid = st.Pid
	}
	owner := identity.Of(ctx).ID
	s := &session{info: info, owner: owner, backend: b, dir: dir}
	m.mu.Lock()
	m.sessions[id] = s
	m.current[owner] = id
	m.mu.Unlock()
	if n, ok := b.(Notifier); ok {
		n.NotifyChanges(func() { m.lookLater(s, true) })
	}
	m.look(ctx, s, true) // a stop on entry, at an attach, a core's
	m.note(s)
	info.Current = true
	return info, nil
}

func (m *Manager) backendNames() []string {
	names := make([]string, 0, len(m.opts.Backends))
	for n := range m.opts.Backends {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func (m *Manager) sessionDir(id string) (string, error) {
	base := m.opts.Dir
	if base == "" {
		base = filepath.Join(os.TempDir(), "triage-debug-"+strconv.Itoa(os.Getpid()))
	}
	dir := filepath.Join(base, id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating session directory: %v", err)
	}
	return dir, nil
}

// Backend returns the session's backend ("" for the caller's current
// session) and marks the session used. Calls through it are noted by the
// Manager (Overviews).
func (m *Manager) Backend(ctx context.Context, id string) (Backend, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, err := m.lookup(identity.Of(ctx), id)
	if err != nil {
		return nil, err
	}
	s.info.LastUsed = time.Now()
	return &observed{Backend: s.backend, m: m, s: s}, nil
}

// lookup finds session id ("" for who's current one) if who may see it;
// m.mu is held.
func (m *Manager) lookup(who identity.Caller, id string) (*session, error) {
	if id == "" {
		if m.current[who.ID] == "" {
			return nil, ErrNoSession
		}
		id = m.current[who.ID]
	}
	s, ok := m.sessions[id]
	if !ok || !who.Sees(s.owner) {
		return nil, fmt.Errorf("%w %q", ErrUnknownSession, id)
	}
	return s, nil
}

// Use makes id the caller's current session.
func (m *Manager) Use(ctx context.Context, id string) error {
	who := identity.Of(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.lookup(who, id); err != nil {
		return err
	}
	m.current[who.ID] = id
	return nil
}

// Info describes one session ("" for the caller's current one).
func (m *Manager) Info(ctx context.Context, id string) (SessionInfo, error) {
	who := identity.Of(ctx)
	m.mu.Lock()
	s, err := m.lookup(who, id)
	if err != nil {
		m.mu.Unlock()
		return SessionInfo{}, err
	}
	info, b, cur := s.info, s.backend, m.current[who.ID]
	m.mu.Unlock()
	info.State = b.State()
	info.Current = info.ID == cur
	return info, nil
}

// List describes the sessions the caller may see, oldest first.
func (m *Manager) List(ctx context.Context) []SessionInfo {
	who := identity.Of(ctx)
	m.mu.Lock()
	ids := make([]string, 0, len(m.sessions))
	for id, s := range m.sessions {
		if who.Sees(s.owner) {
			ids = append(ids, id)
		}
	}
	m.mu.Unlock()
	slices.SortFunc(ids, func(a, b string) int { return idNum(a) - idNum(b) })
	out := make([]SessionInfo, 0, len(ids))
	for _, id := range ids {
		if info, err := m.Info(ctx, id); err == nil {
			out = append(out, info)
		}
	}
	return out
}

func idNum(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "dbg-"))
	return n
}

// Detach ends a session ("" for the caller's current one): the backend
// detaches (or kills a launched target) and is disposed. The session is
// forgotten even when detaching fails.
func (m *Manager) Detach(ctx context.Context, id string) error {
	m.mu.Lock()
	s, err := m.lookup(identity.Of(ctx), id)
	if err == nil {
		delete(m.sessions, s.info.ID)
		if m.current[s.owner] == s.info.ID {
			delete(m.current, s.owner)
		}
	}
	m.mu.Unlock()
	if err != nil {
		return err
	}
	defer m.changed()
	derr := s.backend.Detach(ctx)
	if errors.Is(derr, ErrSessionDead) {
		derr = nil // nothing left to detach from
	}
	return errors.Join(derr, s.dispose())
}

// Close disposes of every session.
func (m *Manager) Close() {
	defer m.looks.Wait() // a look's debugger call ends with its session
	m.mu.Lock()
	m.closed = true
	all := m.sessions
	m.sessions, m.current = make(map[string]*session), make(map[string]string)
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = s.dispose()
		}()
	}
	wg.Wait()
}
