package dap

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	godap "github.com/google/go-dap"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/remote"
)

// Timeouts for the protocol steps that have no caller-given bound.
const (
	startTimeout  = 30 * time.Second
	detachTimeout = 5 * time.Second
	pauseWait     = 15 * time.Second
	pauseResend   = 2 * time.Second // a pause unanswered this long is sent again
	// A pause the adapter refuses as "not running" is sent again this
	// often, and the target taken as stopped once refusals last this long.
	pauseRefusedRetry = 50 * time.Millisecond
	pauseRefusedFor   = time.Second
	coreStopWait      = 5 * time.Second // for the stop lldb-dap reports on a core
)

// Backend is a debugger.Backend over one debug adapter process.
//
// Goroutines: the Conn's reader delivers events to onEvent, which only
// updates state under mu and wakes waiters by closing changed. A watcher
// goroutine turns adapter death into StatusDead. Callers never hold mu
// across a request; bpMu serializes breakpoint changes, because DAP replaces
// a whole source's (or all function) breakpoints per request.
type Backend struct {
	kind string // adapter kind asked for; "" picks by program
	cfg  debugger.Config
	// adapter is an lldb adapter's path given by AttachSpec.Debugger
	// (guarded by mu); "" finds one by kind.
	adapter string
	// launchAdapter finds and starts the adapter; tests replace it to
	// connect to a scripted one.
	launchAdapter func(ctx context.Context, program string) (*started, string, error)
	lim           debugger.Limits
	// pool holds the ssh connections a remote session's adapter runs
	// through (nil: local sessions only).
	pool *remote.Pool

	bpMu sync.Mutex // held across a breakpoint registry change and its request

	mu sync.Mutex
	// host and ssh: a remote session's host and the connection its
	// adapter runs through (remote.go); "" and nil here.
	host string
	ssh  *remote.Conn
	ad   *started
	conn *Conn
	// watched is closed once watch has recorded the adapter's death, so a
	// call its end retired can answer the cause watch found.
	watched     chan struct{}
	fl          flavor
	caps        godap.Capabilities
	state       debugger.State
	stopGen     int           // incremented on every stop, exit and death
	changed     chan struct{} // closed and replaced when state changes
	initialized chan struct{}
	initOnce    sync.Once
	thread      int // thread of the last stop
	launched    bool
	// targetKilled: targetToKill has answered the target's pid.
	targetKilled bool
	pausing      bool // a pause request is in flight: its SIGSTOP is a pause
	// watchStopped: the last stop is a hardware watch's, so the next
	// continue starts with continueFromWatch.
	watchStopped bool
	// entryPending: launched to stop on entry and not stopped yet; the
	// first stop's SIGSTOP (lldb) is the entry stop.
	entryPending bool
	// srcDirs are where a relative breakpoint file is looked for.
	srcDirs  []string
	core     bool
	disposed bool
	bps      map[int]*breakpoint
	nextBP   int
	// book is the logpoints' event log, made by the first logpoint.
	book *debugger.LogBook
	// adapterName is the adapter program's name (lldb-dap-22,
	// lldb-vscode-16), for what no capability tells.
	adapterName string
	// lpPart is a logpoint hit whose text has not all come yet: lldb-dap
	// 22 sends a value of many lines (lldb's error) an output event a
	// line (logpoint.go).
	lpPart string
	// notify is told after a stop, an exit or the adapter's death
	// (debugger.Notifier), outside mu.
	notify func()
}

type breakpoint struct {
	debugger.Breakpoint
	adapterID int
	// fn is the function a function breakpoint is sent for: the spec's,
	// or an exception kind's runtime function; filter an exception
	// filter of the adapter's; lldbWatch lldb's id of a watchpoint set
	// through evaluate; signal the signal an lldb or gdb handles.
	fn        string
	filter    string
	lldbWatch int
	signal    string
	soft      bool // a watch emulated by single-stepping (softwatch.go)
	// dataID is a data breakpoint's id from dataBreakpointInfo, access
	// its access type, dataAdapterID the adapter's id of it (databp.go).
	// atFile and atLine: where a function logpoint is set as a source
	// logpoint, under an adapter that reads no log message on a function
	// breakpoint (lldb-dap): the line its function breakpoint resolved to.
	atFile        string
	atLine        int
	dataID        string
	access        string
	dataAdapterID int
}

// New returns an unstarted backend using adapter kind (KindLLDB, KindDlv,
// KindGDB, or "" to choose by program).
func New(kind string, cfg debugger.Config) *Backend {
	b := &Backend{
		kind:        kind,
		cfg:         cfg,
		lim:         cfg.Limits.WithDefaults(),
		state:       debugger.State{Status: debugger.StatusNotStarted},
		changed:     make(chan struct{}),
		initialized: make(chan struct{}),
		bps:         make(map[int]*breakpoint),
	}
	b.launchAdapter = b.findAndStart
	return b
}

// Factory returns a debugger.Factory making backends of adapter kind,
// whose remote sessions run through pool's connections.
func Factory(kind string, pool *remote.Pool) debugger.Factory {
	return func(cfg debugger.Config) (debugger.Backend, error) {
		b := New(kind, cfg)
		b.pool = pool
		return b, nil
	}
}

// Name implements debugger.Backend.
func (b *Backend) Name() string { return "dap" }

// Capabilities are what the adapter said it supports in its initialize
// response.
func (b *Backend) Capabilities() godap.Capabilities {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.caps
}

// AdapterPid is the adapter process id (0 before start).
func (b *Backend) AdapterPid() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ad == nil || b.ad.p == nil {
		return 0
	}
	return b.ad.p.Pid()
}

func (b *Backend) findAndStart(ctx context.Context, program string) (*started, string, error) {
	b.mu.Lock()
	path, conn := b.adapter, b.ssh
	b.mu.Unlock()
	if conn != nil {
		return b.startRemote(ctx, conn)
	}
	a := Adapter{Kind: KindLLDB, Argv: []string{path}}
	if path == "" {
		var err error
		if a, err = FindAdapter(b.kind, program); err != nil {
			return nil, "", err
		}
	}
	b.mu.Lock()
	b.adapterName = filepath.Base(a.Argv[0])
	b.mu.Unlock()
	if a.Kind == KindGDB {
		if err := CheckGDB(ctx, a.Argv[0]); err != nil {
			return nil, "", err
		}
	}
	ad, err := startAdapter(ctx, a, b.cfg.Dir)
	return ad, a.Kind, err
}

// start starts the adapter and initializes the session.
func (b *Backend) start(ctx context.Context, program string) error {
	ad, kind, err := b.launchAdapter(ctx, program)
	if err != nil {
		return err
	}
	b.mu.Lock()
	if b.disposed {
		b.mu.Unlock()
		ad.stop()
		return errors.New("starting adapter: backend disposed")
	}
	b.ad, b.fl = ad, flavorFor(kind)
	b.conn = NewConn(ad.stream, b.onEvent)
	b.watched = make(chan struct{})
	b.mu.Unlock()
	go b.watch(ad, b.conn, b.watched)

	var caps godap.Capabilities
	err = b.call(ctx, "initialize", godap.InitializeRequestArguments{
		ClientID: "triage", ClientName: "triage", AdapterID: kind,
		LinesStartAt1: true, ColumnsStartAt1: true, PathFormat: "path",
		SupportsVariableType: true,
	}, &caps)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.caps = caps
	b.mu.Unlock()
	return nil
}

// watch turns the adapter's death into StatusDead. Killing the adapter
// closes its stdout, but a debuggee may hold a copy; spawn reports the
// adapter's exit either way, and closing the Conn then retires every call.
// The state says dead before the Conn closes, so a call retired by the
// close finds the session dead when it looks.
func (b *Backend) watch(ad *started, conn *Conn, watched chan<- struct{}) {
	defer close(watched)
	var cause error
	select {
	case <-ad.done():
		res, _ := ad.p.Wait()
		cause = fmt.Errorf("adapter exited: %v", res)
	case <-conn.Done():
		cause = conn.Err()
	}
	if lost := b.lostCause(); lost != nil {
		cause = lost
	}
	var pid int
	b.told(func() {
		pid = b.targetToKill()
		if !b.disposed {
			b.state.Status = debugger.StatusDead
			b.state.Error = fmt.Sprintf("%v%s", cause, ad.logHint())
			b.bump()
		}
	})
	b.killTarget(pid)
	conn.Close(cause)
}

// call sends a request; a dead connection becomes ErrSessionDead.
func (b *Backend) call(ctx context.Context, command string, args, body any) error {
	return <-b.goCall(ctx, command, args, body)
}

// goCall is call with the request written before it returns (Conn.Go).
func (b *Backend) goCall(ctx context.Context, command string, args, body any) <-chan error {
	b.mu.Lock()
	conn, watched := b.conn, b.watched
	b.mu.Unlock()
	out := make(chan error, 1)
	if conn == nil {
		out <- debugger.ErrNotStarted
		return out
	}
	res := conn.Go(ctx, command, args, body) // written before we return
	go func() {
		err := <-res
		if errors.Is(err, ErrConnClosed) {
			err = b.deathCause(ctx, watched, err)
		}
		out <- err
	}()
	return out
}

// deathCause is the error for a call the adapter's end retired: the cause
// watch records (a lost ssh connection rather than the broken pipe the
// call saw), waited for briefly, since the call can see the end first.
func (b *Backend) deathCause(ctx context.Context, watched <-chan struct{}, err error) error {
	t := time.NewTimer(lostGrace + 3*time.Second)
	defer t.Stop()
	select {
	case <-watched:
		b.mu.Lock()
		dead, cause := b.state.Status == debugger.StatusDead, b.state.Error
		b.mu.Unlock()
		if dead && cause != "" {
			return fmt.Errorf("%w: %s", debugger.ErrSessionDead, cause)
		}
	case <-ctx.Done():
	case <-t.C:
	}
	return fmt.Errorf("%w: %v", debugger.ErrSessionDead, err)
}

// bump wakes state waiters. Caller holds mu.
func (b *Backend) bump() {
	b.stopGen++
	close(b.changed)
	b.changed = make(chan struct{})
}

// State implements debugger.Backend.
func (b *Backend) State() debugger.State {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.state
	if st.LastStop != nil {
		stop := *st.LastStop
		st.LastStop = &stop
	}
	return st
}

// Dispose implements debugger.Backend.
func (b *Backend) Dispose() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("disposing dap backend: %v", r)
		}
	}()
	b.mu.Lock()
	if b.disposed {
		b.mu.Unlock()
		return nil
	}
	b.disposed = true
	ad, conn := b.ad, b.conn
	if b.state.Status != debugger.StatusExited {
		b.state.Status = debugger.StatusDead
		b.state.Error = "session disposed"
	}
	b.bump()
	b.mu.Unlock()
	if conn != nil {
		conn.Close(errors.New("session disposed"))
	}
	if ad != nil {
		ad.stop()
	}
	b.mu.Lock()
	pid := b.targetToKill()
	b.mu.Unlock()
	b.killTarget(pid)
	return nil
}

// targetToKill is the program the adapter launched, to be killed once the
// adapter is gone (killTarget, without b.mu: a remote kill is a command on
// the host), or 0: the adapter starts it in a process group of its own, so
// the adapter's group kill misses it, and without its debugger it would run
// on, reparented to init. An attached process is the user's and is left
// alone. Called with b.mu held; it answers a pid once.
func (b *Backend) targetToKill() int {
	if !b.launched || b.state.Pid <= 0 || b.targetKilled || b.state.Status == debugger.StatusExited {
		return 0
	}
	b.targetKilled = true
	return b.state.Pid
}

func killLocal(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
