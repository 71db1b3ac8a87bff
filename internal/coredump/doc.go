// Package coredump finds and reads the evidence a crashed native process
// leaves behind: Linux core files (wherever core_pattern sent them), Apple
// crash reports (.ips and legacy .crash), and a first-look backtrace of a
// core from gdb or lldb.
//
// # Terms
//
//   - core: an ELF file of type ET_CORE written by the kernel when a process
//     dies of a core-dumping signal (SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE,
//     SIGQUIT, SIGTRAP, SIGSYS, ...) and RLIMIT_CORE allows it.
//   - core_pattern: /proc/sys/kernel/core_pattern, which says where the kernel
//     writes a core: a file path template (core(5) %-specifiers, relative to
//     the crashing process's working directory) or, when it starts with '|',
//     a helper program that receives the core on its stdin
//     (systemd-coredump, apport, or anything else).
//   - crash report: the text or JSON file macOS's ReportCrash writes into
//     ~/Library/Logs/DiagnosticReports for a crashed process (.ips since
//     macOS 12, legacy .crash before).
//
// # When is a core complete?
//
// For a file pattern the kernel writes the core synchronously in the context
// of the dying task (do_coredump runs from get_signal before do_group_exit),
// and the task only becomes a zombie, and so only wakes a parent in wait(2),
// after the core file is written and closed. A core file found after the
// parent's wait returned is therefore complete; if it is shorter than its
// program headers say, it was cut short by RLIMIT_CORE or a full disk, not
// caught mid-write (TestCoreCompleteAfterWait checks this on a real crash).
// For a pipe pattern the kernel waits, and only when core_pipe_limit is
// non-zero, for the helper to close the pipe, not for it to store the dump;
// systemd-coredump, apport and macOS's ReportCrash all store it after the
// parent has been notified, so [Finder] polls for those, bounded by
// [Finder.Wait] and the context.
//
// # Reading
//
// [ParseReport] detects the format the way delve's core.OpenCore does: each
// reader in turn either parses the input or returns [ErrUnrecognizedFormat],
// and only then is the next one tried. [OpenCore] reads an ELF core's notes
// (NT_PRSTATUS, NT_PRPSINFO, NT_SIGINFO, NT_AUXV, NT_FILE) with no debugger,
// so a core can be summarised and matched to its program even where gdb is
// missing. [Backtrace] runs gdb (or lldb when gdb is absent) in batch mode
// through internal/spawn and parses the crashing thread's frames.
package coredump
