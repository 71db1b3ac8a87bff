// Package services holds the long-lived state one triage process shares across
// tool calls: configuration, session defaults, and (as workflows need them) the
// output store and the managers of processes, debugger and dump sessions.
//
// A Set is built once by the command line (cmd/triage) and handed to every
// workflow; workflows reach domain packages through it and never build their own.
//
// What clients create is kept per client identity: the identity travels in
// the request's context (internal/identity, put there by the server), and
// the domain's managers and the store it reaches through the Set check it
// on every call that names an id, so handlers pass their ctx and nothing
// more. Session defaults are per identity too (Defaults.For).
package services

import (
	"context"
	"errors"
	"fmt"
	"github.com/triage-dev/triage/internal/notify"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/triage-dev/triage/internal/background"
	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/debugger/dap"
	"github.com/triage-dev/triage/internal/debugger/lldbcli"
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/doctor"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/scratch"
	"github.com/triage-dev/triage/internal/store"
)

// WorkflowGate is what the server offers the session workflow about the
// workflows a profile may show.
type WorkflowGate interface {
	// Check reports a name that is no workflow a profile can show here.
	Check(names []string) error
	// ListChanged tells the connected clients their tool lists changed.
	ListChanged()
}

// Set is the shared state of one triage process.
type Set struct {
	Config *config.Config
	// Defaults are the session defaults of each client identity
	// (Defaults.For(ctx) is the caller's).
	Defaults *defaults.Book
	Log      *slog.Logger
	// Version describes this build.
	Version string
	// EnabledWorkflows are the workflows the server registered, in order.
	EnabledWorkflows []string
	// Workflows, set by the server, checks the workflows a profile names
	// and tells sessions their tool lists changed (nil: no server).
	Workflows WorkflowGate

	closeMu  sync.Mutex
	closers  []func() error
	sweeping sync.WaitGroup // the start's sweep of the temporary directory

	// ssh holds the connections to remote hosts (ssh_host) every workflow
	// shares; it closes after everything that runs through it.
	ssh *remote.Pool

	// Each manager is made on first use; its ready flag says it exists
	// (Busy looks without making one).
	storeOnce  sync.Once
	store      *store.Store
	storeErr   error
	jobs       *background.Manager
	storeReady atomic.Bool

	debugOnce  sync.Once
	debug      *debugger.Manager
	debugReady atomic.Bool

	dumpsOnce  sync.Once
	dumps      *postmortem.Manager
	dumpsReady atomic.Bool

	workOnce sync.Once
	work     *scratch.Rooms

	sessions notify.Changes // a debug or dump session changed (SessionsChanged)
}

// New builds the services for cfg.
func New(cfg *config.Config, log *slog.Logger, version string) (*Set, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ds, err := defaults.NewBook(cfg.AllProfiles(), cfg.Profile)
	if err != nil {
		return nil, err
	}
	ssh := remote.NewPool(remote.Options{Config: cfg.SSH.Config}) // connects on first use
	s := &Set{Config: cfg, Defaults: ds, Log: log, Version: version, ssh: ssh}
	// What a triage killed outright left in the temporary directory (a
	// debug session's logs, an in-memory store's bodies, a dump's work
	// directory) goes now, beside the start rather than before it (a
	// crowded temporary directory takes a while to read); its owner lock
	// died with it, while this process's own directories are locked.
	s.sweeping.Add(1)
	go func() {
		defer s.sweeping.Done()
		removed, err := scratch.Sweep("")
		if len(removed) > 0 {
			log.Debug("removed temporary directories left by a triage that is gone", "paths", removed)
		}
		if err != nil {
			log.Warn("sweeping temporary directories", "err", err)
		}
	}()
	return s, nil
}

// OnClose registers f to run at Close, in reverse order of registration.
// Managers made on first use by concurrent calls register at once.
func (s *Set) OnClose(f func() error) {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	s.closers = append(s.closers, f)
}

// Close releases everything the set owns: sessions are disposed and children
// reaped, then the ssh connections they ran through are closed. It is safe
// to call more than once.
func (s *Set) Close() error {
	s.closeMu.Lock()
	closers := s.closers
	s.closers = nil
	s.closeMu.Unlock()
	var errs []error
	for i := len(closers) - 1; i >= 0; i-- {
		errs = append(errs, closers[i]())
	}
	s.sweeping.Wait()
	return errors.Join(append(errs, s.ssh.Close())...)
}

// Remote is the pool of ssh connections to the hosts that ssh_host names:
// one multiplexed connection per host, shared by runs, debug and dump
// sessions.
func (s *Set) Remote() *remote.Pool { return s.ssh }

// ConfigPathForWrite is where persisted defaults go: the config file in effect,
// or a new .triage/config.yaml in the working directory.
func (s *Set) ConfigPathForWrite() (string, error) {
	if s.Config.Path != "" {
		return s.Config.Path, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return filepath.Join(wd, config.FileName), nil
}

// StorePath is the output store's path in effect.
func (s *Set) StorePath() string {
	if p := s.Config.Store.Path; p != "" {
		return p
	}
	return store.DefaultPath()
}

// Store opens the output store on first use (so that starting triage costs no
// database work) and prunes it to the configured retention.
func (s *Set) Store(ctx context.Context) (*store.Store, error) {
	s.storeOnce.Do(func() {
		c := s.Config.Store
		maxAge := time.Duration(c.MaxAge)
		if maxAge == 0 {
			maxAge = config.DefaultMaxAge
		}
		maxMB := c.MaxSizeMB
		if maxMB == 0 {
			maxMB = config.DefaultMaxSizeMB
		}
		st, err := store.Open(ctx, s.StorePath(), store.Options{MaxAge: maxAge, MaxTotalBytes: maxMB << 20})
		if err != nil {
			s.storeErr = fmt.Errorf("output store: %w", err)
			return
		}
		if t := st.Tightened(); len(t) > 0 {
			// An older triage made them readable by every local user.
			s.Log.Warn("made the output store private to this user (it was readable by others)", "paths", t)
		}
		if _, err := st.Prune(ctx, time.Now()); err != nil {
			s.Log.Warn("pruning the output store", "err", err)
		}
		s.store = st
		s.jobs = background.New(st, s.Config.BudgetBytes()/2)
		// Registered here so that Close stops jobs before closing the store.
		s.OnClose(st.Close)
		s.OnClose(s.jobs.Close)
		s.storeReady.Store(true)
	})
	return s.store, s.storeErr
}

// Jobs returns the background process manager.
func (s *Set) Jobs(ctx context.Context) (*background.Manager, error) {
	if _, err := s.Store(ctx); err != nil {
		return nil, err
	}
	return s.jobs, nil
}

// StoreHealth reports the output store's path and state.
func (s *Set) StoreHealth(ctx context.Context) doctor.Store {
	h := doctor.Store{Path: s.StorePath()}
	st, err := s.Store(ctx)
	if err != nil {
		h.Status = err.Error()
		return h
	}
	n, size, err := st.Stats(ctx)
	if err != nil {
		h.Status = err.Error()
		return h
	}
	h.Status, h.Outputs, h.Bytes = "ok", n, size
	return h
}

// Debugger returns the debug session manager, created on first use with the
// DAP and LLDB command-line backends; Close disposes of every session, so no
// debugger or debuggee outlives triage, and removes the sessions' directory
// (adapter logs), private to this Set so that two Sets never share one.
func (s *Set) Debugger() *debugger.Manager {
	s.debugOnce.Do(func() {
		dir := ""
		owned, err := scratch.Dir("", "debug")
		if err == nil {
			dir = owned.Path
		} // else the Manager falls back to its own temporary directory
		s.debug = debugger.NewManager(debugger.Options{
			Backends: map[string]debugger.Factory{"dap": dap.Factory("", s.ssh), "lldb": lldbcli.Factory(s.ssh)},
			Default:  s.Config.Debugger.Backend,
			Dir:      dir,
			OnChange: s.sessions.Notify,
		})
		s.OnClose(func() error {
			s.debug.Close()
			return owned.Remove()
		})
		s.debugReady.Store(true)
	})
	return s.debug
}

// WorkRooms hands out directories in a temporary directory this process
// holds (made on first use, removed at Close; swept by a later triage if
// this one is killed), for what calls need for a moment: a coverage run's
// data. A room there costs one mkdir, made ahead of the call that takes
// it, not a scratch directory's owner file and lock. nil when the
// directory could not be made: callers then make scratch directories of
// their own.
func (s *Set) WorkRooms() *scratch.Rooms {
	s.workOnce.Do(func() {
		owned, err := scratch.Dir("", "work")
		if err != nil {
			s.Log.Warn("making the work directory", "err", err)
			return
		}
		s.work = scratch.NewRooms(owned.Path)
		s.OnClose(func() error {
			s.work.Close()
			return owned.Remove()
		})
	})
	return s.work
}

// Dumps returns the post-mortem dump session manager, created on first use;
// Close disposes of every session, killing the engines' process groups.
func (s *Set) Dumps() *postmortem.Manager {
	s.dumpsOnce.Do(func() {
		s.dumps = postmortem.NewManager(postmortem.Options{CommandTimeout: s.Config.CommandTimeout(), Remote: s.ssh, OnChange: s.sessions.Notify})
		s.OnClose(s.dumps.CloseAll)
		s.dumpsReady.Store(true)
	})
	return s.dumps
}

// Busy reports state a client may come back to: a background process still
// running, a debug session, a dump session. The CLI's daemon does not end
// itself while there is some.
func (s *Set) Busy() bool {
	if s.storeReady.Load() {
		for _, j := range s.jobs.List(context.Background()) {
			select {
			case <-j.Done():
			default:
				return true
			}
		}
	}
	return s.debugReady.Load() && len(s.debug.List(context.Background())) > 0 ||
		s.dumpsReady.Load() && len(s.dumps.List(context.Background())) > 0
}

// DebugSessions lists the caller's debug sessions without making the
// manager (none when no call has made it).
func (s *Set) DebugSessions(ctx context.Context) []debugger.SessionInfo {
	if !s.debugReady.Load() {
		return nil
	}
	return s.debug.List(ctx)
}

// DebugOverviews describes the caller's debug sessions from what the
// manager holds (debugger.Manager.Overviews: no debugger command is sent
// but the manager's own look at a stop's frames, between calls), without
// making the manager.
func (s *Set) DebugOverviews(ctx context.Context) []debugger.Overview {
	if !s.debugReady.Load() {
		return nil
	}
	return s.debug.Overviews(ctx)
}

// SessionsChanged returns a channel closed at the next change of a debug
// or dump session of this process: one opened or ended, a stop, a
// breakpoint, a dump command run. The web page's live updates wait on it.
func (s *Set) SessionsChanged() <-chan struct{} { return s.sessions.Wait() }

// DumpSessions lists the caller's dump sessions without making the manager.
func (s *Set) DumpSessions(ctx context.Context) []*postmortem.Session {
	if !s.dumpsReady.Load() {
		return nil
	}
	return s.dumps.List(ctx)
}

// JobList lists the caller's background processes without opening the
// store (none when no call has opened it).
func (s *Set) JobList(ctx context.Context) []*background.Job {
	if !s.storeReady.Load() {
		return nil
	}
	return s.jobs.List(ctx)
}

// CrashPlaces are where crash_report_list looks besides the usual places:
// projectDir, where programs ran (background jobs', recent runs'), and
// where triage keeps the cores it moved out of the user's tree.
func (s *Set) CrashPlaces(ctx context.Context, projectDir string) coredump.Places {
	p := coredump.Places{ProjectDir: projectDir}
	if m, err := s.Jobs(ctx); err == nil {
		for _, j := range m.List(ctx) {
			p.Ran = append(p.Ran, j.Dir)
		}
	}
	if st, err := s.Store(ctx); err == nil {
		p.Kept, p.KeptRun = st.CoreDir(""), st.Visible(ctx)
		entries, _ := st.List(ctx, 100)
		for _, e := range entries {
			p.Ran = append(p.Ran, e.Cwd)
		}
	}
	return p
}
