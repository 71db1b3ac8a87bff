// Package observe runs a program under gdb with tracepoints that record
// and never stop it: each a location, expressions to record, an optional
// condition and a hit limit. It returns how the program ended (the verdict
// `run` gives, with the crash site when it crashed), the hits of each
// tracepoint with their first and last values, and the events as JSON lines.
//
// gdb is the engine because it is the fastest here at many hits: a Python
// breakpoint whose stop() records and returns False costs what a dprintf
// costs, while lldb's breakpoint commands with auto-continue are an order of
// magnitude slower (10,000 hits: seconds against minutes).
package observe
