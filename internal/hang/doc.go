// Package hang takes the evidence a hung program leaves while it is still
// alive: the stacks of every thread or goroutine of a process group that is
// about to be killed for running over its time limit, and from them the
// place where it was stuck.
//
// A crash leaves a core; a hang leaves nothing once its process group is
// killed. So, before the kill (internal/spawn calls back on a timeout, and
// on a Stop whose SIGTERM was ignored), Capture looks at the group's leaf
// processes (the ones doing the work: a test binary under `go test` or
// `cargo test`, a program under a shell) and:
//
//   - a Go program gets SIGQUIT: its runtime writes every goroutine's stack
//     to stderr and exits. The dump arrives in the captured output, which a
//     Tap keeps from the moment of capture; ParseGoroutines reads it (also
//     wrapped in `go test -json` lines).
//   - a native program (C, C++, Rust, Swift) gets a debugger attached in
//     batch mode (gdb, lldb as fallback) that prints every thread's
//     backtrace and detaches.
//
// The whole capture is bounded in time (Options.Limit) and the kept stacks
// in number; what could not be taken is said in Report.Notes and the kill
// proceeds regardless.
//
// Report.Analyze then picks the stacks that matter: the running test's (by
// name), else the threads waiting on locks when two or more are (a
// deadlock, every lock site named), else threads busy in user code, else
// the main thread or goroutine. The stuck place is each one's first frame
// in the user's own code, with the wait reason (chan receive,
// sync.Mutex.Lock, pthread_mutex_lock, running). A thread waiting for a
// glibc mutex is named with the thread holding it, one waiting for a glibc
// rwlock with its writer (read from the lock: mutex_linux.go), a cycle of
// such waits is said as the deadlock's cycle, and a holder waiting for no
// lock with where it is (holder.go, phrase.go). A Go goroutine blocked on a
// channel or a lock with no other goroutine left but the runtime's and a
// test harness's is said to have none that could end its wait.
package hang
