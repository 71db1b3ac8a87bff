// Package dap is the Debug Adapter Protocol backend of internal/debugger.
//
// Conn is the client side of the protocol on any byte stream (framing from
// github.com/google/go-dap, correlation by request_seq, events, reverse
// requests). The backend starts one adapter process per session, speaks DAP
// to it through a Conn and converts between go-dap wire types and the
// debugger package's domain types; no go-dap type leaves this package.
package dap
