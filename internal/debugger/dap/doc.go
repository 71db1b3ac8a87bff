// Package dap is the Debug Adapter Protocol backend of internal/debugger.
//
// Conn is the client side of the protocol on any byte stream: framing from
// github.com/google/go-dap (Content-Length, 4 MiB cap), one reader goroutine
// correlating responses to requests by request_seq through a pending map,
// events handed to a callback, reverse requests (runInTerminal,
// startDebugging) declined with an error response so the adapter never
// waits, and every pending call retired with ErrConnClosed when the stream
// dies.
//
// Backend starts one adapter process per session (its stderr goes to a log
// file in the session directory), speaks DAP to it through a Conn and
// converts between go-dap wire types and the debugger package's domain
// types; no go-dap type leaves this package. Adapters:
//
//   - lldb-dap, or lldb-vscode[-N] before LLVM 18 (Debian's lldb-16 ships
//     lldb-vscode-16): DAP on stdin/stdout. Raw commands are sent to the repl
//     context behind lldb's command escape, a backtick.
//   - dlv dap, for Go binaries (chosen automatically when the program carries
//     Go build info): we listen on 127.0.0.1:0 first and start
//     `dlv dap --client-addr=ADDR`, so dlv dials us. This needs no parsing of
//     dlv's "DAP server listening at:" line, leaves no window in which another
//     local process could connect to a listening dlv, and dlv exits by itself
//     when the connection closes.
//   - gdb -i=dap, gdb 14 and later only (checked with gdb --version).
//
// Quirks handled: the initialized event comes before the launch/attach
// response (gdb, dlv) or after it (lldb), so the launch request is written
// first and configuration waits for whichever comes; breakpoint removal
// re-sends the remaining set for the source (or all function breakpoints),
// since DAP has no per-breakpoint delete; lldb reports the stop a pause
// request causes as SIGSTOP or a trace stop, relabelled as a pause, and a
// launch's stop on entry as SIGSTOP, relabelled as an entry stop; a stop
// whose description names a signal (lldb: "signal SIGSEGV: invalid
// address") is a signal stop with that signal. Capabilities from initialize
// decide whether conditional, hit-count and function breakpoints are
// offered (ErrUnsupported otherwise).
package dap
