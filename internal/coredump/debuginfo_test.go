package coredump

import (
	"context"
	"debug/elf"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// copyInto copies a crashers binary where a test may add files beside it.
func copyInto(t *testing.T, src, dir string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

func run(t *testing.T, argv ...string) {
	t.Helper()
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", argv, err, out)
	}
}

// TestReadDebugInfo: real gcc output with -g, without, stripped, and with
// its DWARF moved to a separate debug file that gdb would find through
// .gnu_debuglink (beside it, in .debug/) or the build-id.
func TestReadDebugInfo(t *testing.T) {
	for name, want := range map[string]DebugInfo{
		"segv":         {Has: true},
		"segvnodebug":  {},
		"segvstripped": {Stripped: true},
	} {
		exe := crashers.Build(t, name)
		got, err := ReadDebugInfo(exe)
		if err != nil {
			t.Fatal(err)
		}
		if want.Has {
			want.In = exe
		}
		if got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	if _, err := ReadDebugInfo(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing file read as an object")
	}

	needTool(t, "objcopy", "binutils")
	split := func(t *testing.T, debugDir string) (exe, debug string) {
		dir := t.TempDir()
		exe = copyInto(t, crashers.Build(t, "segv"), dir)
		debug = filepath.Join(dir, debugDir, "segv.debug")
		os.MkdirAll(filepath.Dir(debug), 0o755)
		run(t, "objcopy", "--only-keep-debug", exe, debug)
		run(t, "objcopy", "--strip-debug", "--add-gnu-debuglink="+debug, exe)
		return exe, debug
	}
	for _, sub := range []string{"", ".debug"} {
		t.Run("debuglink in "+sub+"/", func(t *testing.T) {
			exe, debug := split(t, sub)
			got, err := ReadDebugInfo(exe)
			if err != nil || !got.Has || got.In != debug {
				t.Errorf("%+v %v, want the DWARF in %s", got, err, debug)
			}
			os.Remove(debug)
			if got, _ := ReadDebugInfo(exe); got.Has {
				t.Errorf("with the debug file gone: %+v", got)
			}
		})
	}
	t.Run("build-id", func(t *testing.T) {
		exe, debug := split(t, "")
		f, err := elf.Open(exe)
		if err != nil {
			t.Fatal(err)
		}
		id := buildID(f)
		f.Close()
		if len(id) == 0 {
			t.Skip("the compiler wrote no build-id")
		}
		old := DebugFileDir
		DebugFileDir = t.TempDir()
		t.Cleanup(func() { DebugFileDir = old })
		h := hex.EncodeToString(id)
		byID := filepath.Join(DebugFileDir, ".build-id", h[:2], h[2:]+".debug")
		os.MkdirAll(filepath.Dir(byID), 0o755)
		if err := os.Rename(debug, byID); err != nil {
			t.Fatal(err)
		}
		if got, _ := ReadDebugInfo(exe); !got.Has || got.In != byID {
			t.Errorf("%+v, want the DWARF in %s", got, byID)
		}
	})
}

// TestMissingDebugInfo: a core of a program built without -g names the
// program; with -g, nothing is missing; a crash in a shared library built
// without -g, called from a program with -g, names the library.
func TestMissingDebugInfo(t *testing.T) {
	needTool(t, "gdb", "gdb")
	missing := func(t *testing.T, exe, core string) *NoDebugInfo {
		t.Helper()
		tr, err := Backtrace(context.Background(), exe, core, BacktraceOptions{Debugger: "gdb"})
		if err != nil {
			t.Fatal(err)
		}
		ci, err := OpenCore(core)
		if err != nil {
			t.Fatal(err)
		}
		return tr.MissingDebugInfo(ci, exe, "")
	}
	for name, stripped := range map[string]bool{"segvnodebug": false, "segvstripped": true} {
		t.Run(name, func(t *testing.T) {
			c, core := realCore(t, name)
			got := missing(t, c.Exe, core)
			if got == nil || got.File != c.Exe || got.Stripped != stripped {
				t.Fatalf("%+v, want %s (stripped %v)", got, c.Exe, stripped)
			}
			if !stripped && got.Function != "crash_here" {
				t.Errorf("function %q, want crash_here", got.Function)
			}
		})
	}
	t.Run("with -g", func(t *testing.T) {
		c, core := realCore(t, "segv")
		if got := missing(t, c.Exe, core); got != nil {
			t.Errorf("%+v for a program with debug info", got)
		}
	})
	t.Run("shared library", func(t *testing.T) {
		needTool(t, "cc", "gcc")
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "lib.c"), []byte("int deref(int *p) { return *p; }\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "main.c"), []byte("int deref(int *p);\nint main(void) { return deref(0); }\n"), 0o644)
		lib, exe := filepath.Join(dir, "libd.so"), filepath.Join(dir, "main")
		run(t, "cc", "-O0", "-shared", "-fPIC", "-o", lib, filepath.Join(dir, "lib.c"))
		run(t, "cc", "-g", "-O0", "-o", exe, filepath.Join(dir, "main.c"), "-L"+dir, "-ld", "-Wl,-rpath,"+dir)
		res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{exe}, Dir: dir, CoreDumps: true})
		if err != nil || !res.Signaled {
			t.Fatalf("%v %v", res, err)
		}
		arts, err := Find(context.Background(), CrashFromResult(res))
		if err != nil || arts[0].Kind != "core" {
			t.Skipf("no core file: %v", err)
		}
		got := missing(t, exe, arts[0].Path)
		if got == nil || got.File != lib || got.Function != "deref" {
			t.Errorf("%+v, want deref in %s", got, lib)
		}
	})
}

// TestFindGroupCoarseMtime: the kernel stamps a core from a coarse clock,
// so a process that crashes as soon as the run starts leaves a core whose
// time is a few milliseconds before the run's start; it is still the
// run's. A core of another process group is not, whatever its time.
func TestFindGroupCoarseMtime(t *testing.T) {
	c, core := realCore(t, "segv")
	ci, err := OpenCore(core)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := os.Chtimes(core, start.Add(-5*time.Millisecond), start.Add(-5*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	q := GroupQuery{Since: start, Pgid: ci.Pgrp, Dirs: []string{c.Cwd}}
	if arts, err := FindGroup(context.Background(), q); err != nil || len(arts) != 1 {
		t.Errorf("core stamped 5ms before the start: %v %v", arts, err)
	}
	q.Pgid = ci.Pgrp + 100000
	if arts, _ := FindGroup(context.Background(), q); len(arts) != 0 {
		t.Errorf("another group's core taken: %v", arts)
	}
}
