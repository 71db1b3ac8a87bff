package postmortem

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/repl"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// makeCore runs a crasher with core dumps on in a fresh directory and
// returns the executable and its core.
func makeCore(t *testing.T, name string) (exe, core string) {
	t.Helper()
	exe = crashers.Build(t, name)
	dir := t.TempDir()
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{exe}, Dir: dir, CoreDumps: true, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Signaled {
		t.Fatalf("%s did not crash: %s", name, res)
	}
	cores, _ := filepath.Glob(filepath.Join(dir, "core*"))
	if len(cores) == 0 {
		t.Skipf("no core file in %s (core_pattern pipes cores elsewhere?)", dir)
	}
	return exe, cores[0]
}

func TestManagerProcessCore(t *testing.T) {
	exe, core := makeCore(t, "segv")
	m := NewManager(Options{WorkRoot: t.TempDir(), CommandTimeout: 30 * time.Second})
	t.Cleanup(func() { m.CloseAll() })
	ctx := context.Background()
	s, reused, err := m.Open(ctx, Target{Core: core, Program: exe})
	if err != nil || reused {
		t.Fatalf("Open = %v, reused %v", err, reused)
	}
	// The same core under another name is the same session.
	alias := filepath.Join(t.TempDir(), "copy.core")
	if err := os.Link(core, alias); err != nil {
		t.Fatal(err)
	}
	s2, reused, err := m.Open(ctx, Target{Core: alias, Program: exe})
	if err != nil || !reused || s2 != s || s.Refs() != 2 {
		t.Fatalf("reopen: %v reused %v same %v refs %d", err, reused, s2 == s, s.Refs())
	}

	wants := []struct {
		engine  Engine
		command string
		want    string
	}{
		{EngineGDB, "bt", "crash_here"},
		{EngineGDB, "bt", "segv.c:5"},
		{EngineLLDB, "bt", "crash_here"},
		{EngineDrgn, "prog.crashed_thread().stack_trace()", "crash_here"},
		{EngineDrgn, "for f in prog.crashed_thread().stack_trace():\n    print('FN', f.name)", "FN crash_here"},
	}
	for _, w := range wants {
		if _, err := lookEngine(w.engine); err != nil {
			t.Logf("skipping %s: %v", w.engine, err)
			continue
		}
		res, err := s.Exec(ctx, w.engine, w.command, 0, false)
		if err != nil {
			t.Fatalf("%s %q: %v", w.engine, w.command, err)
		}
		if !strings.Contains(res.Output, w.want) {
			t.Errorf("%s %q lacks %q:\n%s", w.engine, w.command, w.want, res.Output)
		}
	}
	// gdb's frame selection moves the context.
	res, err := s.Exec(ctx, EngineGDB, "frame 1", 0, false)
	if err != nil || res.After.Frame != 1 || !res.After.Set {
		t.Errorf("frame 1: %v, context %+v\n%s", err, res.After, res.Output)
	}
	if _, err := s.Exec(ctx, EngineCrash, "bt", 0, false); !errors.Is(err, ErrWrongEngine) {
		t.Errorf("crash on a process core: %v", err)
	}

	var pids []int
	for _, e := range s.EngineInfos() {
		if e.State == "running" {
			pids = append(pids, e.Pid)
		}
	}
	if _, left, err := m.Close(ctx, ""); err != nil || left != 1 {
		t.Fatalf("first close: left %d, %v", left, err)
	}
	for _, p := range pids {
		if !testutil.ProcessAlive(p) {
			t.Errorf("engine %d died while a reference remained", p)
		}
	}
	if _, left, err := m.Close(ctx, s.ID); err != nil || left != 0 {
		t.Fatalf("last close: left %d, %v", left, err)
	}
	for _, p := range pids {
		if testutil.ProcessAlive(p) {
			t.Errorf("engine %d outlived its session", p)
		}
	}
	if _, err := os.Stat(s.WorkDir); !os.IsNotExist(err) {
		t.Errorf("work dir %s left behind: %v", s.WorkDir, err)
	}
	if _, err := m.Get(ctx, ""); !errors.Is(err, ErrNoSession) {
		t.Errorf("Get after close: %v", err)
	}
}

func TestOpenBadTargets(t *testing.T) {
	exe, core := makeCore(t, "segv")
	dir := t.TempDir()
	empty := writeTemp(t, "empty", nil)
	short := filepath.Join(dir, "short.core")
	data, err := os.ReadFile(core)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(short, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	m := NewManager(Options{WorkRoot: t.TempDir()})
	t.Cleanup(func() { m.CloseAll() })
	tests := []struct {
		name   string
		target Target
		want   string
	}{
		{"missing core", Target{Core: filepath.Join(dir, "nope"), Program: exe}, "no such file"},
		{"missing program", Target{Core: core, Program: filepath.Join(dir, "nope")}, "no such file"},
		{"no program", Target{Core: core}, "needs core and program"},
		{"empty", Target{Core: empty, Program: exe}, "empty"},
		{"executable as core", Target{Core: exe, Program: exe}, "not a dump"},
		{"core as vmcore", Target{Kernel: true, Vmcore: core, Vmlinux: exe}, "process core, not a kernel dump"},
		{"truncated", Target{Core: short, Program: exe}, "truncated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := m.Open(context.Background(), tt.target)
			if !errors.Is(err, ErrBadTarget) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open = %v, want ErrBadTarget saying %q", err, tt.want)
			}
		})
	}
}

func TestEngineDeathAndTimeout(t *testing.T) {
	exe, core := makeCore(t, "segv")
	if _, err := lookEngine(EngineDrgn); err != nil {
		t.Skip(err)
	}
	m := NewManager(Options{WorkRoot: t.TempDir()})
	t.Cleanup(func() { m.CloseAll() })
	ctx := context.Background()
	s, _, err := m.Open(ctx, Target{Core: core, Program: exe})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Exec(ctx, EngineDrgn, "x = 41", 0, false); err != nil {
		t.Fatal(err)
	}
	// The engine exits mid-command: a clear error, then a fresh engine.
	_, err = s.Exec(ctx, EngineDrgn, "import os; os._exit(3)", 0, false)
	var ce *CommandError
	if !errors.As(err, &ce) || ce.Usable || !strings.Contains(err.Error(), "drgn ended while running") || !strings.Contains(err.Error(), "exited with status 3") || !strings.Contains(err.Error(), "next command restarts") {
		t.Fatalf("exit mid-command: %v", err)
	}
	res, err := s.Exec(ctx, EngineDrgn, "'x' in globals()", 0, false)
	if err != nil || !strings.Contains(res.Output, "False") || len(res.Notes) == 0 {
		t.Fatalf("after death: %v notes %v output %q", err, res.Notes, res.Output)
	}
	// A command that ignores the interrupt is killed and the engine restarted.
	_, err = s.Exec(ctx, EngineDrgn, "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(60)", 500*time.Millisecond, false)
	if !errors.As(err, &ce) || ce.Timeout == 0 || ce.Usable || !ce.Restarted {
		t.Fatalf("spinning command: %v", err)
	}
	if res, err := s.Exec(ctx, EngineDrgn, "6*7", 0, false); err != nil || !strings.Contains(res.Output, "42") {
		t.Fatalf("after restart: %v %q", err, res.Output)
	}
	// One that answers the interrupt keeps the engine and its state.
	if _, err := s.Exec(ctx, EngineDrgn, "y = 5", 0, false); err != nil {
		t.Fatal(err)
	}
	_, err = s.Exec(ctx, EngineDrgn, "import time; time.sleep(60)", 500*time.Millisecond, false)
	if !errors.As(err, &ce) || !ce.Usable {
		t.Fatalf("interrupted command: %v", err)
	}
	if res, err := s.Exec(ctx, EngineDrgn, "y", 0, false); err != nil || !strings.Contains(res.Output, "5") {
		t.Fatalf("state after interrupt: %v %q", err, res.Output)
	}
}

func TestEngineMissing(t *testing.T) {
	exe, core := makeCore(t, "segv")
	t.Setenv("PATH", t.TempDir())
	m := NewManager(Options{WorkRoot: t.TempDir()})
	t.Cleanup(func() { m.CloseAll() })
	s, _, err := m.Open(context.Background(), Target{Core: core, Program: exe})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		e   Engine
		pkg string
	}{{EngineGDB, "apt-get install gdb"}, {EngineLLDB, "apt-get install lldb-16"}, {EngineDrgn, "apt-get install python3-drgn"}} {
		_, err := s.Exec(context.Background(), tt.e, "bt", 0, false)
		if !errors.Is(err, ErrEngineMissing) || !strings.Contains(err.Error(), tt.pkg) {
			t.Errorf("%s: %v, want ErrEngineMissing naming %q", tt.e, err, tt.pkg)
		}
	}
	// The failure is recorded, not retried on every call.
	if infos := s.EngineInfos(); infos[0].State != "failed" {
		t.Errorf("gdb state = %+v", infos[0])
	}
}

// An error from an engine that stays up says only that the command failed:
// never that the engine ended, and the next command runs on the same engine.
func TestCommandErrorOfLiveEngineNamesNoDeath(t *testing.T) {
	exe, core := makeCore(t, "segv")
	if _, err := lookEngine(EngineGDB); err != nil {
		t.Skip(err)
	}
	m := NewManager(Options{WorkRoot: t.TempDir()})
	t.Cleanup(func() { m.CloseAll() })
	ctx := context.Background()
	s, _, err := m.Open(ctx, Target{Core: core, Program: exe})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Exec(ctx, EngineGDB, "bt\ninfo registers", 0, false)
	var ce *CommandError
	if !errors.As(err, &ce) || !ce.Usable || !errors.Is(err, repl.ErrMultiline) {
		t.Fatalf("two lines: %v", err)
	}
	for _, word := range []string{"died", "ended", "killed", "timed out", "restart"} {
		if strings.Contains(err.Error(), word) {
			t.Errorf("error of a live engine says %q: %v", word, err)
		}
	}
	res, err := s.Exec(ctx, EngineGDB, "bt", 0, false)
	if err != nil || len(res.Notes) != 0 || !strings.Contains(res.Output, "crash_here") {
		t.Errorf("next command: %v notes %v output %q", err, res.Notes, res.Output)
	}
}
