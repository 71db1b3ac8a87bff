package coredump

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/toolpath"
)

// BacktraceOptions tune Backtrace. The zero value tries gdb, then lldb, with
// DefaultBacktraceTimeout.
type BacktraceOptions struct {
	// Debugger is "gdb", "lldb", or "" for gdb falling back to lldb.
	Debugger string
	// Timeout bounds the debugger run (loading a large core with many
	// shared libraries takes a while); 0 means DefaultBacktraceTimeout.
	Timeout time.Duration
	// ProjectDir is the project the program belongs to, when known: the
	// crash site is its first frame in it (see crashsite).
	ProjectDir string
	// NoSite leaves out the crash site: gdb prints the backtrace only.
	NoSite bool
}

// DefaultBacktraceTimeout bounds one debugger run.
const DefaultBacktraceTimeout = time.Minute

// ErrNoDebugger: neither gdb nor lldb is installed (or the one asked for is not).
var ErrNoDebugger = errors.New("no debugger found")

// ErrDebuggerTimeout: the debugger did not finish within the timeout.
var ErrDebuggerTimeout = errors.New("debugger timed out")

// Backtrace runs a debugger in batch mode on core and returns the crashing
// thread's frames. exe may be empty when the core records its executable.
// The core is checked first (OpenCore), so a wrong file fails with a
// specific error instead of a debugger's complaint; a core that does not
// match exe, or is truncated, yields a Trace warning, not an error.
func Backtrace(ctx context.Context, exe, core string, opts BacktraceOptions) (*Trace, error) {
	info, err := OpenCore(core)
	if err != nil {
		return nil, fmt.Errorf("backtrace: %w", err)
	}
	var warnings []string
	if exe == "" {
		exe = info.ExePath
	} else if err := info.MatchExe(exe); err != nil {
		warnings = append(warnings, err.Error())
	}
	if info.Truncated {
		warnings = append(warnings, fmt.Sprintf("core is truncated (%d bytes missing): frames may be missing or wrong", info.MissingBytes))
	}
	if exe != "" {
		if abs, err := filepath.Abs(exe); err == nil {
			exe = abs
		}
	}
	if abs, err := filepath.Abs(core); err == nil {
		core = abs
	}
	run, err := pickDebugger(opts.Debugger, !opts.NoSite)
	if err != nil {
		return nil, fmt.Errorf("backtrace of %s: %w", core, err)
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultBacktraceTimeout
	}
	tr, err := run(ctx, exe, core, timeout)
	if tr != nil {
		tr.Warnings = append(warnings, tr.Warnings...)
	}
	if err != nil {
		return tr, fmt.Errorf("backtrace of %s: %w", core, err)
	}
	if !opts.NoSite {
		tr.Site = tr.CrashSite(opts.ProjectDir, opts.ProjectDir, filepath.Dir(exe))
	}
	return tr, nil
}

type debuggerRun func(ctx context.Context, exe, core string, timeout time.Duration) (*Trace, error)

// pickDebugger finds the debugger; site asks gdb for the crash site too.
func pickDebugger(name string, site bool) (debuggerRun, error) {
	gdb := func() (debuggerRun, bool) {
		if path, err := toolpath.GDB.Find(); err == nil {
			return func(ctx context.Context, exe, core string, timeout time.Duration) (*Trace, error) {
				return runGDB(ctx, gdbArgv(path, exe, core, site), timeout)
			}, true
		}
		return nil, false
	}
	lldb := func() (debuggerRun, bool) {
		if path, err := toolpath.LLDB.Find(); err == nil {
			return func(ctx context.Context, exe, core string, timeout time.Duration) (*Trace, error) {
				return runLLDB(ctx, lldbArgv(path, exe, core, site), timeout)
			}, true
		}
		return nil, false
	}
	switch name {
	case "gdb":
		if r, ok := gdb(); ok {
			return r, nil
		}
		return nil, fmt.Errorf("%w: gdb is not on PATH (install the gdb package)", ErrNoDebugger)
	case "lldb":
		if r, ok := lldb(); ok {
			return r, nil
		}
		return nil, fmt.Errorf("%w: lldb is not on PATH (install the lldb package)", ErrNoDebugger)
	case "":
		if r, ok := gdb(); ok {
			return r, nil
		}
		if r, ok := lldb(); ok {
			return r, nil
		}
		return nil, fmt.Errorf("%w: neither gdb nor lldb is on PATH (install the gdb or lldb package)", ErrNoDebugger)
	}
	return nil, fmt.Errorf("unknown debugger %q: use gdb or lldb", name)
}

// GDBArgv is the batch command that prints the crashing thread's
// backtrace of core (ParseGDBBacktrace reads its output), for a gdb run
// elsewhere (on the host a core is on).
func GDBArgv(gdb, exe, core string) []string { return gdbArgv(gdb, exe, core, false) }

// gdbArgv builds the batch command. -nx skips ~/.gdbinit (which could do
// anything); debuginfod is turned off so gdb never stalls downloading
// symbols; the marker separates load chatter from our bt. With site, the
// crash site's commands follow bt (gdbSiteCommands).
func gdbArgv(gdb, exe, core string, site bool) []string {
	argv := []string{gdb, "-nx", "-batch",
		"-iex", "set debuginfod enabled off",
		"-ex", "set pagination off",
		"-ex", "set width 0",
		"-ex", "echo " + btMarker + `\n`,
		"-ex", "bt",
	}
	if site {
		argv = append(argv, gdbSiteCommands()...)
	}
	if exe != "" {
		argv = append(argv, "-se", exe)
	}
	return append(argv, "-c", core)
}

func runGDB(ctx context.Context, argv []string, timeout time.Duration) (*Trace, error) {
	out, err := runDebugger(ctx, argv, timeout)
	if err != nil {
		return nil, err
	}
	return ParseGDBBacktrace(out)
}

// lldbArgv uses --core and a positional file after "--", so no path is
// ever parsed as an lldb command or option. With site, a script prints
// the crash site's sections after bt (lldbSiteScript).
func lldbArgv(lldb, exe, core string, site bool) []string {
	argv := []string{lldb, "--batch", "--no-lldbinit", "--core", core, "-o", "bt"}
	if site {
		argv = append(argv, "-o", "settings set target.max-string-summary-length 64",
			"-o", "settings set target.max-children-count 16", "-o", "script "+lldbSiteScript)
	}
	if exe != "" {
		argv = append(argv, "--", exe)
	}
	return argv
}

func runLLDB(ctx context.Context, argv []string, timeout time.Duration) (*Trace, error) {
	out, err := runDebugger(ctx, argv, timeout)
	if err != nil {
		return nil, err
	}
	return ParseLLDBBacktrace(out)
}

func runDebugger(ctx context.Context, argv []string, timeout time.Duration) (string, error) {
	run, err := runTool(ctx, argv, timeout)
	if err != nil {
		return "", err
	}
	if run.res.TimedOut {
		return "", fmt.Errorf("%w: %s ran over %v", ErrDebuggerTimeout, filepath.Base(argv[0]), timeout)
	}
	if run.res.Cancelled {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		return "", context.Canceled
	}
	out := run.stdout
	if run.stderr != "" {
		out += "\n" + strings.TrimSpace(run.stderr)
	}
	return out, nil
}
