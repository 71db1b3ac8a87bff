package capture

import (
	"context"
	"errors"
	"time"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/memcheck"
	"github.com/triage-dev/triage/internal/store"
)

// A crash the caller saw under a program of its own (a test under its
// runner: ctest, make check, meson test) is judged by the same rule as a
// run's (corruption.go), from what the caller found of it, and its program
// alone, never the runner, is rerun under memcheck (RerunCrash).

// Crash is what a crash seen under a runner left.
type Crash struct {
	Signal string // "SIGSEGV"; "" when not known
	// Core is the crashed process's core, nil when none was read: it
	// tells a wild address from a NULL one.
	Core       *coredump.CoreInfo
	Frames     []coredump.Frame // the crashing thread's backtrace, innermost first
	Lines      []string         // the output's crash lines (the runner's, the test's own)
	ProjectDir string
}

// facts is the crash in the rule's terms.
func (c Crash) facts() crashFacts {
	f := crashFacts{Signal: c.Signal, ProjectDir: c.ProjectDir, Lines: c.Lines, Frames: coredump.SiteFrames(c.Frames)}
	if ci := c.Core; ci != nil {
		f.SigCode, f.Fault, f.HasFault = ci.SigCode, ci.FaultAddr, ci.HasFaultAddr
		f.Mapped = f.HasFault && mapped(ci.Mappings, ci.FaultAddr)
	}
	return f
}

// LooksLikeCorruption says whether the crash looks like memory corruption,
// and why in words (a run's rule: looksLikeCorruption).
func (c Crash) LooksLikeCorruption() (bool, string) {
	return looksLikeCorruption(c.facts())
}

// CrashOf is the crash a run captured, in Crash's terms: a runner that
// itself died.
func CrashOf(o *Outcome, projectDir string) Crash {
	c := Crash{ProjectDir: projectDir}
	f := factsOf(o, projectDir)
	c.Signal, c.Lines = f.Signal, f.Lines
	if f.Signal == "" {
		return c
	}
	c.Core = o.coreInfo
	if o.Trace != nil {
		c.Frames = o.Trace.Frames
	}
	return c
}

// RerunCrash reruns the program whose crash c looks like memory corruption
// (opts: its argv, directory and environment) under memcheck, limited by
// the time it ran; nil when the crash does not look like corruption or
// the rerun is off. progErr, when set, says why the program is not known:
// the answer says it was not rerun, and why. The caller reruns only what
// runs here (no host).
func (m Memcheck) RerunCrash(ctx context.Context, st *store.Store, c Crash, opts memcheck.Options, ran time.Duration, progErr error) *MemcheckRun {
	if m.Off {
		return nil
	}
	ok, why := c.LooksLikeCorruption()
	if !ok {
		return nil
	}
	if progErr == nil && len(opts.Argv) == 0 {
		progErr = errors.New("no program to rerun")
	}
	if opts.ProjectDir == "" {
		opts.ProjectDir = c.ProjectDir
	}
	return m.start(ctx, st, why, ran, opts, progErr)
}
