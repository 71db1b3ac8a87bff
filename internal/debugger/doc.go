// Package debugger is the debugging domain: a Manager that owns debug
// sessions, and the Backend interface each debugger implementation satisfies.
//
// Backends are sibling packages: dap (any Debug Adapter Protocol adapter:
// lldb-dap/lldb-vscode, dlv dap, gdb -i=dap) and lldbcli (a long-lived lldb
// driven over internal/repl). They speak our own types (State, Stop,
// Breakpoint, Frame, Variable); wire types never leave the backend packages.
// The caller registers backend factories with the Manager, which picks one per
// session: explicit choice, then the session default, then config, then "dap"
// (ResolveBackend).
//
// State model: a session's target is not started, running, stopped, exited or
// dead (the debugger itself is gone). The last stop (reason breakpoint,
// signal, exception, step, pause, entry or exited, with signal name, exit code
// and thread) is kept until the next one, so a caller that arrives late still
// learns why the target stopped. Requests that need a stopped target answer
// ErrRunning at once instead of blocking; WaitStop is the one way to wait
// for a running target, on the debugger's own reports.
//
// Threads: ListThreads lists a stopped target's threads, each numbered as
// its debugger numbers it (lldb's #N, gdb's thread number, dlv's goroutine
// id) and described by its top frame in the program's own code (crashsite's
// rule, the crash site's) and the call it is in ("blocked in pthread_join");
// a stop's report says where the others are. Through the Manager the list
// is kept per stop, like the stop's top frames, and forgotten by a call
// that may move the target.
//
// Remote hosts: a spec's SSHHost makes the backend run its debugger on that
// host, through the host's one ssh connection (internal/remote, which the
// backends are given by their factories; this package only carries the
// name). Every path in the spec (program, core, working directory,
// breakpoint files) and every pid is the host's own: nothing is looked up
// or checked on this side. A session whose connection drops is dead, and
// its error says so.
package debugger
