package coredump

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// TestCoreIsOf: a core is a process's by its pid when that is known, else
// by its executable (a path, a bare name, the kernel's 15-byte comm).
func TestCoreIsOf(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "calc-1f2e3d")
	if err := os.WriteFile(exe, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "calc")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	test := &CoreInfo{Pid: 4242, ExePath: exe, Program: "calc-1f2e3d"}
	doctest := &CoreInfo{Pid: 4250, ExePath: "/tmp/rustdoctestAbc/rust_out", Program: "rust_out"}
	deleted := &CoreInfo{Pid: 7, ExePath: exe + " (deleted)", Program: "calc-1f2e3d"}
	noPath := &CoreInfo{Pid: 8, Program: "averyveryverylo"}
	for _, tc := range []struct {
		name string
		core *CoreInfo
		p    Proc
		want bool
	}{
		{"nothing known", doctest, Proc{}, true},
		{"same pid", test, Proc{Pid: 4242}, true},
		{"other pid", doctest, Proc{Pid: 4242}, false},
		{"pid wins over a matching exe", test, Proc{Pid: 4250, Exe: exe}, false},
		{"same path", test, Proc{Exe: exe}, true},
		{"other path", doctest, Proc{Exe: exe}, false},
		{"same file by another path", test, Proc{Exe: link}, true},
		{"deleted executable", deleted, Proc{Exe: exe}, true},
		{"shell's relative name", test, Proc{Exe: "./calc-1f2e3d"}, true},
		{"shell's other name", doctest, Proc{Exe: "./calc-1f2e3d"}, false},
		{"comm only", noPath, Proc{Exe: "/x/averyveryverylongname"}, true},
		{"comm only, other", noPath, Proc{Exe: "/x/short"}, false},
		{"empty core", &CoreInfo{}, Proc{Exe: "/x/y"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.core.IsOf(tc.p); got != tc.want {
				t.Errorf("IsOf(%+v) = %v, want %v", tc.p, got, tc.want)
			}
		})
	}
	if got, want := doctest.NotOf("/src/crate", "the crashed test", Proc{Pid: 4242, Exe: exe}), "a core in /src/crate is of pid 4250 (rust_out), not the crashed test (pid 4242 (calc-1f2e3d))"; got != want {
		t.Errorf("NotOf = %q, want %q", got, want)
	}
}

// TestFindSaysTheCoreIsAnothers: when the core where the crashed process's
// should be is a later process's, Find does not return it and says whose
// it is.
func TestFindSaysTheCoreIsAnothers(t *testing.T) {
	c, core := realCore(t, "segv")
	ci, err := OpenCore(core)
	if err != nil {
		t.Fatal(err)
	}
	crashed := c
	crashed.Pid = ci.Pid + 100000 // the process whose core it is not
	f := Finder{Wait: -1}
	arts, err := f.Find(context.Background(), crashed)
	var nc *NoCoreError
	if !errors.As(err, &nc) || len(arts) > 0 {
		t.Fatalf("Find = %v, %v; want no core", arts, err)
	}
	want := "a core in " + filepath.Dir(core) + " is of pid " + strconv.Itoa(ci.Pid) + " (" + filepath.Base(c.Exe) + "), not the crashed process"
	if !strings.Contains(nc.Reason, want) {
		t.Errorf("reason %q lacks %q", nc.Reason, want)
	}
}

// TestWatchKeepsTheOverwrittenCore: two processes of one run crash in
// turn in one directory under core_pattern "core"; the second's core
// replaces the first's, and the watch keeps the first as core.PID. Both
// are of the run: of its process group; children its leader started in
// sessions of their own (meson's tests, under os.setsid); or forked in
// sessions of their own, running programs the run names (Programs,
// GroupQuery.Exes), and then only by those.
func TestWatchKeepsTheOverwrittenCore(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(exe string) string // the shell command that runs exe
		// programs: the run names its programs, by which alone the cores
		// are the run's.
		programs bool
	}{
		{"one group", func(exe string) string { return exe }, false},
		{"sessions of their own", func(exe string) string { return "setsid " + exe }, false},
		{"forked in sessions of their own", func(exe string) string { return "setsid sh -c '" + exe + "; exit 1'" }, true},
	} {
		t.Run(tc.name, func(t *testing.T) { watchTwoCrashes(t, tc.run, tc.programs) })
	}
}

// watchTwoCrashes runs two crashers in turn by run, under a watch, and
// checks that both cores are found, the first one kept.
func watchTwoCrashes(t *testing.T, run func(exe string) string, programs bool) {
	nativeprojects.Need(t, "setsid")
	dir := t.TempDir()
	held := make(chan string, 4)
	f := Finder{onHold: func(p string) { held <- p }}
	w := f.WatchCores([]string{dir}, 1)
	if w == nil {
		pattern, _ := os.ReadFile("/proc/sys/kernel/core_pattern")
		t.Skipf("core_pattern %q (or core_uses_pid) names each core apart: nothing to watch", strings.TrimSpace(string(pattern)))
	}
	segv, abort := crashers.Build(t, "segv"), crashers.Build(t, "abort")
	var exes []string
	if programs {
		exes = []string{segv, abort}
		w.Programs(exes)
	}
	gate := filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	// The second crash waits on the gate, opened once the watch holds the
	// first core.
	go func() {
		select {
		case <-held:
		case <-time.After(time.Minute):
		}
		if g, err := os.OpenFile(gate, os.O_WRONLY, 0); err == nil {
			g.WriteString("go\n")
			g.Close()
		}
	}()
	script := run(segv) + "; read x < " + gate + "; " + run(abort) + "; exit 1"
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{"/bin/sh", "-c", script}, Dir: dir, CoreDumps: true, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	saved := w.Stop(res.Pid)
	if len(saved) != 1 || w.Seen() != 2 {
		t.Fatalf("saved %v, seen %d; want the first core saved of 2 seen (run: %v)", saved, w.Seen(), res)
	}
	q := GroupQuery{Since: res.Started, Pgid: res.Pid, Dirs: []string{dir}}
	if programs {
		if arts, err := FindGroup(context.Background(), q); err != nil || len(arts) != 0 {
			t.Errorf("FindGroup without the run's programs = %v, %v; want no core", arts, err)
		}
		q.Exes = exes
	}
	arts, err := FindGroup(context.Background(), q)
	if err != nil || len(arts) != 2 {
		t.Fatalf("FindGroup = %v, %v; want both cores", arts, err)
	}
	byExe := map[string]*CoreInfo{}
	for _, a := range arts {
		ci, err := OpenCore(a.Path)
		if err != nil {
			t.Fatal(err)
		}
		byExe[filepath.Base(ci.ExePath)] = ci
	}
	first, second := byExe[filepath.Base(segv)], byExe[filepath.Base(abort)]
	if first == nil || second == nil || first.Path != saved[0] || second.Path != filepath.Join(dir, "core") {
		t.Fatalf("cores %v: want segv's saved at %s and abort's at core", arts, saved[0])
	}
	if saved[0] != filepath.Join(dir, "core."+strconv.Itoa(first.Pid)) || first.SignalName != "SIGSEGV" {
		t.Errorf("saved %s of pid %d (%s)", saved[0], first.Pid, first.SignalName)
	}
	if inGroup := !strings.HasPrefix(run(segv), "setsid "); (first.Pgrp == res.Pid) != inGroup {
		t.Errorf("the first core's group is %d, the run's %d: want it in the run's %v", first.Pgrp, res.Pid, inGroup)
	}
}
