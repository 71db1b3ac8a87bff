package coredump

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Proc is what is known of the process a crash is about, so that a core is
// used only when it is that process's: under a fixed core_pattern ("core")
// a later crash in the same directory replaces the file, and a core of the
// same process group written since the run started may still be another
// process's (a doctest that crashed after the test did).
//
// Pid is the process's pid: the child triage reaped, or the pid a crash
// line names (a shell's job report, automake's test-driver). Exe is its
// executable: a path (cargo's "process didn't exit successfully:
// `/x/target/debug/deps/t-1f2e`"), or a bare name (a shell's "./t" is
// "t"). Zero values are unknown.
type Proc struct {
	Pid int
	Exe string
}

// Known reports whether anything is known of the process.
func (p Proc) Known() bool { return p.Pid > 0 || p.Exe != "" }

func (p Proc) String() string {
	switch {
	case p.Pid > 0 && p.Exe != "":
		return fmt.Sprintf("pid %d (%s)", p.Pid, filepath.Base(p.Exe))
	case p.Pid > 0:
		return fmt.Sprintf("pid %d", p.Pid)
	}
	return filepath.Base(p.Exe)
}

// IsOf reports whether the core is of process p: its pid when p's is
// known (NT_PRSTATUS, NT_PRPSINFO), else its executable (NT_FILE's mapping
// of the entry point, else AT_EXECFN; the kernel's 15-byte comm when the
// core names no path). A p of which nothing is known matches every core.
func (c *CoreInfo) IsOf(p Proc) bool {
	switch {
	case p.Pid > 0:
		return c.Pid == p.Pid
	case p.Exe == "":
		return true
	}
	return c.ranExe(p.Exe)
}

// ranExe reports whether the core's executable is exe: the same path (or
// file), or, for a bare or relative name, the same base name.
func (c *CoreInfo) ranExe(exe string) bool {
	mine := strings.TrimSuffix(c.ExePath, " (deleted)")
	if mine == "" {
		return c.Program != "" && c.Program == commName(exe)
	}
	if !filepath.IsAbs(exe) || !filepath.IsAbs(mine) {
		return filepath.Base(mine) == filepath.Base(exe)
	}
	if filepath.Clean(mine) == filepath.Clean(exe) {
		return true
	}
	a, errA := os.Stat(mine)
	b, errB := os.Stat(exe)
	return errA == nil && errB == nil && os.SameFile(a, b)
}

// Proc is the process the core is of.
func (c *CoreInfo) Proc() Proc {
	return Proc{Pid: c.Pid, Exe: firstNonEmpty(strings.TrimSuffix(c.ExePath, " (deleted)"), c.Program)}
}

// NotOf says that a core found in dir is another process's than the one a
// crash is about, for an answer: "a core in /src/crate is of pid 4243
// (rust_out), not the crashed test (pid 4242)". what names the crashed
// process ("the crashed test").
func (c *CoreInfo) NotOf(dir, what string, p Proc) string {
	s := fmt.Sprintf("a core in %s is of %s, not %s", dir, c.Proc(), what)
	if p.Known() {
		s += " (" + p.String() + ")"
	}
	return s
}
