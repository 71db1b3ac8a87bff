// Package spawn runs child processes for triage, and is the only package
// that starts them (repl builds on it for interactive programs).
//
// Every child runs in its own process group (its pid is the group id), so
// that a timeout, a cancelled context or Stop can end the child and every
// descendant still in that group: SIGTERM first, SIGKILL after the grace
// period. When the leader exits on its own, descendants left in the group
// are killed too, after at most Spec.WaitDelay spent draining the output
// they still hold open; a grandchild that keeps stdout open therefore never
// makes a run hang, and none outlives it. A descendant that leaves the
// group (setsid, a daemon) escapes this; reading its output stops anyway.
//
// Output is streamed, never buffered whole: stdout and stderr go to their
// own sinks as they arrive, and to an optional Combined sink in arrival
// order with whole lines written atomically. Memory stays bounded whatever
// the child prints.
//
// Run and Wait return a Result that tells an exit from a signal, records
// whether the kernel dumped core, whether we timed out or were cancelled,
// and the peak RSS. Start failures are *StartError values with a Kind for
// callers to branch on and a message saying what to fix.
//
// Core dumps: with Spec.CoreDumps the child's RLIMIT_CORE soft limit is
// raised to the hard limit before it runs; see forkMu for why this is done
// in the parent under a lock. Where the kernel's core_pattern sends cores is
// outside this package (see coredump).
package spawn
