// Package stall tells a process group that has stopped making progress
// from one that is merely slow, while it runs, so that a hang ends a call
// early instead of waiting out its time limit.
//
// A group is stalled when, for a whole limit (stall_s), it wrote no output,
// gained no CPU time, and every thread was blocked: in a wait that no
// timer of its own ends within the limit (a futex, a pipe or socket read, a
// wait for a child, an epoll, poll or select wait with no timeout or a
// longer one). A thread that runs, sleeps on a timer (nanosleep, a timed
// wait shorter than the limit, a timerfd), or is in any other state keeps
// the group alive: the rule errs towards never calling a working program
// hung.
//
// Detector is the pure rule over samples; Watch samples a live group once a
// second (from /proc on Linux, where reading a child's syscall and memory
// needs no ptrace stop; elsewhere it never finds a stall).
package stall
