package coredump

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/toolpath"
)

func needTool(t *testing.T, name, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s not found: install the %s package", name, pkg)
	}
}

func needLLDB(t *testing.T) {
	t.Helper()
	if _, err := toolpath.LLDB.Find(); err != nil {
		t.Skip("lldb not found: install the lldb (or lldb-16) package")
	}
}

// TestBacktraceReal: a real crash, found through core_pattern, backtraced by
// each real debugger, names the crashing function and source line.
func TestBacktraceReal(t *testing.T) {
	segv, segvCore := realCore(t, "segv")
	abrt, abrtCore := realCore(t, "abort")
	for _, dbg := range []string{"gdb", "lldb"} {
		t.Run(dbg, func(t *testing.T) {
			if dbg == "gdb" {
				needTool(t, "gdb", "gdb")
			} else {
				needLLDB(t)
			}
			for _, tc := range []struct {
				c            Crash
				core, signal string
				fn, file     string
				line         int
			}{
				{segv, segvCore, "SIGSEGV", "crash_here", "segv.c", 5},
				{abrt, abrtCore, "SIGABRT", "main", "abort.c", 6},
			} {
				tr, err := Backtrace(context.Background(), tc.c.Exe, tc.core, BacktraceOptions{Debugger: dbg})
				if err != nil {
					t.Fatalf("%s: %v", tc.file, err)
				}
				got, _ := tr.Crashing("")
				if tr.Debugger != dbg || tr.Signal != tc.signal || got.Function != tc.fn || filepath.Base(got.File) != tc.file || got.Line != tc.line {
					t.Errorf("%s says %s, crashing frame %v; want %s in %s at %s:%d", tr.Debugger, tr.Signal, got, tc.signal, tc.fn, tc.file, tc.line)
				}
				if len(tr.Warnings) != 0 {
					t.Errorf("warnings: %q", tr.Warnings)
				}
			}
		})
	}
	t.Run("exe from core", func(t *testing.T) {
		needTool(t, "gdb", "gdb")
		tr, err := Backtrace(context.Background(), "", segvCore, BacktraceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := tr.Crashing(""); got.Function != "crash_here" || got.Line != 5 {
			t.Errorf("crashing frame %v", got)
		}
	})
	t.Run("wrong exe", func(t *testing.T) {
		needTool(t, "gdb", "gdb")
		tr, err := Backtrace(context.Background(), crashers.Build(t, "fpe"), segvCore, BacktraceOptions{Debugger: "gdb"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(tr.Warnings, "\n"), "does not match") {
			t.Errorf("no mismatch warning: %q", tr.Warnings)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		needTool(t, "gdb", "gdb")
		_, err := Backtrace(context.Background(), segv.Exe, segvCore, BacktraceOptions{Debugger: "gdb", Timeout: time.Nanosecond})
		if !errors.Is(err, ErrDebuggerTimeout) {
			t.Errorf("err = %v, want ErrDebuggerTimeout", err)
		}
	})
	t.Run("unknown debugger", func(t *testing.T) {
		if _, err := Backtrace(context.Background(), segv.Exe, segvCore, BacktraceOptions{Debugger: "windbg"}); err == nil || !strings.Contains(err.Error(), "windbg") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestBacktraceBadCore(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "text")
	os.WriteFile(text, []byte("hello\n"), 0o644)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	exe := crashers.Build(t, "segv")
	for _, tc := range []struct {
		name, core string
		want       error
	}{
		{"missing", filepath.Join(dir, "nope"), fs.ErrNotExist},
		{"zero-length", empty, ErrEmpty},
		{"text", text, ErrUnrecognizedFormat},
		{"executable", exe, ErrNotCore},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Backtrace(context.Background(), exe, tc.core, BacktraceOptions{})
			if !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestDebuggerArgv(t *testing.T) {
	// Hostile paths stay single argv elements, never parsed as options.
	g := gdbArgv("gdb", "/tmp/-x evil", "/tmp/core;rm", true)
	if g[len(g)-4] != "-se" || g[len(g)-3] != "/tmp/-x evil" || g[len(g)-1] != "/tmp/core;rm" {
		t.Errorf("gdb argv %q", g)
	}
	l := lldbArgv("lldb", "/tmp/-x evil", "/tmp/core", true)
	if l[len(l)-2] != "--" || l[len(l)-1] != "/tmp/-x evil" {
		t.Errorf("lldb argv %q", l)
	}
}
