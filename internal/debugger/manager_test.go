package debugger

import (
	"context"
	"errors"
	iofs "io/fs"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/identity"
)

// fakeBackend records lifecycle calls; the real backends are tested in
// their own packages against real debuggers.
type fakeBackend struct {
	name      string
	failStart bool
	mu        sync.Mutex
	disposed  int
	detached  int
}

func (f *fakeBackend) Name() string { return f.name }
func (f *fakeBackend) start() (State, error) {
	if f.failStart {
		return State{}, errors.New("launching: adapter refused")
	}
	return State{Status: StatusRunning, Pid: 42}, nil
}
func (f *fakeBackend) Launch(context.Context, LaunchSpec) (State, error) { return f.start() }
func (f *fakeBackend) Attach(context.Context, AttachSpec) (State, error) { return f.start() }
func (f *fakeBackend) LoadCore(context.Context, CoreSpec) (State, error) { return f.start() }
func (f *fakeBackend) Detach(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.detached++
	return nil
}
func (f *fakeBackend) AddBreakpoint(context.Context, BreakpointSpec) (Breakpoint, error) {
	return Breakpoint{}, ErrUnsupported
}
func (f *fakeBackend) RemoveBreakpoint(context.Context, int) error { return ErrUnsupported }
func (f *fakeBackend) Breakpoints() []Breakpoint                   { return nil }
func (f *fakeBackend) Continue(context.Context, ContinueOptions) (State, error) {
	return State{}, ErrUnsupported
}
func (f *fakeBackend) Step(context.Context, StepKind, int, time.Duration) (State, error) {
	return State{}, ErrUnsupported
}
func (f *fakeBackend) Pause(context.Context) (State, error) { return State{}, ErrUnsupported }
func (f *fakeBackend) WaitStop(context.Context, time.Duration) (State, error) {
	return State{}, ErrUnsupported
}
func (f *fakeBackend) Stack(context.Context, int, int) ([]Frame, error) { return nil, ErrUnsupported }
func (f *fakeBackend) Threads(context.Context) ([]Thread, error)        { return nil, ErrUnsupported }
func (f *fakeBackend) Variables(context.Context, VariablesRequest) ([]Variable, error) {
	return nil, ErrUnsupported
}
func (f *fakeBackend) Evaluate(context.Context, string, int) (Variable, error) {
	return Variable{}, ErrUnsupported
}
func (f *fakeBackend) RawCommand(context.Context, string) (string, error) { return "", ErrUnsupported }
func (f *fakeBackend) ReadMemory(context.Context, MemoryRequest) (Memory, error) {
	return Memory{}, ErrUnsupported
}
func (f *fakeBackend) Registers(context.Context, int) (Registers, error) {
	return Registers{}, ErrUnsupported
}
func (f *fakeBackend) Disassemble(context.Context, DisassembleRequest) (Disassembly, error) {
	return Disassembly{}, ErrUnsupported
}
func (f *fakeBackend) State() State { return State{Status: StatusRunning} }
func (f *fakeBackend) Dispose() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.disposed++
	return nil
}

type fakes struct {
	mu   sync.Mutex
	made []*fakeBackend
	dirs []string // each backend's session directory
	fail bool
}

func (fs *fakes) factory(name string) Factory {
	return func(cfg Config) (Backend, error) {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		if cfg.Dir == "" || cfg.Limits.MaxString == 0 {
			return nil, errors.New("factory got no session dir or limits")
		}
		b := &fakeBackend{name: name, failStart: fs.fail}
		fs.made = append(fs.made, b)
		fs.dirs = append(fs.dirs, cfg.Dir)
		return b, nil
	}
}

func newTestManager(t *testing.T, def string) (*Manager, *fakes) {
	fs := &fakes{}
	m := NewManager(Options{
		Backends: map[string]Factory{"dap": fs.factory("dap"), "lldb": fs.factory("lldb")},
		Default:  def,
		Dir:      t.TempDir(),
	})
	t.Cleanup(m.Close)
	return m, fs
}

func TestResolveBackend(t *testing.T) {
	for _, tc := range []struct{ explicit, session, config, want string }{
		{"", "", "", "dap"},
		{"", "", "lldb", "lldb"},
		{"", "lldb", "dap", "lldb"},
		{"dap", "lldb", "lldb", "dap"},
		{" lldb-cli ", "", "", "lldb"},
	} {
		if got := ResolveBackend(tc.explicit, tc.session, tc.config); got != tc.want {
			t.Errorf("ResolveBackend(%q, %q, %q) = %q, want %q", tc.explicit, tc.session, tc.config, got, tc.want)
		}
	}
}

func TestManagerSessions(t *testing.T) {
	m, fs := newTestManager(t, "lldb")
	ctx := context.Background()
	if _, err := m.Backend(ctx, ""); !errors.Is(err, ErrNoSession) {
		t.Fatalf("no sessions: %v", err)
	}
	a, err := m.Launch(ctx, "", LaunchSpec{Program: "/bin/a"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Backend != "lldb" || a.Pid != 42 || !a.Current || a.Target != "/bin/a" {
		t.Errorf("first session = %+v (config default is lldb)", a)
	}
	b, err := m.Attach(ctx, "dap", AttachSpec{Pid: 7})
	if err != nil {
		t.Fatal(err)
	}
	if cur, _ := m.Info(ctx, ""); cur.ID != b.ID {
		t.Errorf("current = %s, want the newest %s", cur.ID, b.ID)
	}
	if err := m.Use(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if be, _ := m.Backend(ctx, ""); be.Name() != "lldb" {
		t.Errorf("current backend after Use = %s", be.Name())
	}
	if _, err := m.Backend(ctx, "dbg-999"); !errors.Is(err, ErrUnknownSession) {
		t.Errorf("unknown id: %v", err)
	}
	if err := m.Use(ctx, "nope"); !errors.Is(err, ErrUnknownSession) {
		t.Errorf("Use unknown: %v", err)
	}
	if list := m.List(ctx); len(list) != 2 || list[0].ID != a.ID || !list[0].Current || list[1].Current {
		t.Errorf("List = %+v", list)
	}
	if err := m.Detach(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if fs.made[0].detached != 1 || fs.made[0].disposed != 1 {
		t.Errorf("detach: %+v", fs.made[0])
	}
	if _, err := os.Stat(fs.dirs[0]); !errors.Is(err, iofs.ErrNotExist) {
		t.Errorf("session directory %s left after detach: %v", fs.dirs[0], err)
	}
	if _, err := os.Stat(fs.dirs[1]); err != nil {
		t.Errorf("the other session's directory: %v", err)
	}
	if _, err := m.Backend(ctx, ""); !errors.Is(err, ErrNoSession) {
		t.Errorf("after detaching the current session: %v", err)
	}
	if _, err := m.Backend(ctx, b.ID); err != nil {
		t.Errorf("other session gone: %v", err)
	}
	if _, err := m.Launch(ctx, "gdb-mi", LaunchSpec{}); !errors.Is(err, ErrUnknownBackend) {
		t.Errorf("unknown backend: %v", err)
	}
}

func TestManagerFailedStartDisposes(t *testing.T) {
	m, fs := newTestManager(t, "")
	fs.fail = true
	if _, err := m.Launch(context.Background(), "", LaunchSpec{}); err == nil {
		t.Fatal("failed start reported success")
	}
	if len(fs.made) != 1 || fs.made[0].disposed != 1 {
		t.Fatalf("backend of a failed start not disposed: %+v", fs.made)
	}
	if _, err := os.Stat(fs.dirs[0]); !errors.Is(err, iofs.ErrNotExist) {
		t.Errorf("session directory of a failed start left: %v", err)
	}
	if len(m.List(context.Background())) != 0 {
		t.Error("failed session listed")
	}
}

func TestLimits(t *testing.T) {
	l := Limits{MaxString: 5, MaxChildren: 2}.WithDefaults()
	if v, cut := l.CapValue("héllo world"); v != "héll…" || cut == "" {
		t.Errorf("CapValue = %q, %q", v, cut)
	}
	if v, cut := l.CapValue("short"); v != "short" || cut != "" {
		t.Errorf("CapValue(short) = %q, %q", v, cut)
	}
	if keep, note := l.CapChildren(10); keep != 2 || note != "2 of 10 children shown" {
		t.Errorf("CapChildren = %d, %q", keep, note)
	}
	for _, spec := range []BreakpointSpec{{}, {File: "a.c"}, {File: "a.c", Line: 1, Function: "f"}} {
		if spec.Validate() == nil {
			t.Errorf("%+v accepted", spec)
		}
	}
}

// TestManagerSessionsBelongToTheirIdentity: each identity has its own
// current session; another identity's session is unknown to it (the same
// error as an id that never existed) for Backend, Info, Use and Detach, and
// left out of its List; the server's own identity reaches every session.
func TestManagerSessionsBelongToTheirIdentity(t *testing.T) {
	m, fs := newTestManager(t, "lldb")
	alice := identity.With(context.Background(), identity.Caller{ID: "token:a"})
	bob := identity.With(context.Background(), identity.Caller{ID: "token:b"})
	a, err := m.Launch(alice, "", LaunchSpec{Program: "/bin/a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Backend(bob, ""); !errors.Is(err, ErrNoSession) {
		t.Errorf("bob's current session: %v, want none", err)
	}
	_, unknown := m.Backend(bob, "dbg-999")
	for name, err := range map[string]error{
		"backend": func() error { _, err := m.Backend(bob, a.ID); return err }(),
		"info":    func() error { _, err := m.Info(bob, a.ID); return err }(),
		"use":     m.Use(bob, a.ID),
		"detach":  m.Detach(bob, a.ID),
	} {
		if want := strings.ReplaceAll(unknown.Error(), "dbg-999", a.ID); err == nil || err.Error() != want {
			t.Errorf("bob's %s on alice's session: %v, want %q", name, err, want)
		}
	}
	if l := m.List(bob); len(l) != 0 {
		t.Errorf("bob lists %+v", l)
	}
	if fs.made[0].detached != 0 {
		t.Fatal("bob detached alice's session")
	}
	if cur, err := m.Info(alice, ""); err != nil || cur.ID != a.ID || !cur.Current {
		t.Errorf("alice's current session: %+v %v", cur, err)
	}
	if l := m.List(context.Background()); len(l) != 1 {
		t.Errorf("the server's identity lists %+v", l)
	}
	if err := m.Detach(context.Background(), a.ID); err != nil || fs.made[0].detached != 1 {
		t.Errorf("the server's identity detaching alice's session: %v", err)
	}
	if _, err := m.Backend(alice, ""); !errors.Is(err, ErrNoSession) {
		t.Errorf("alice's current session after its detach: %v", err)
	}
}
