// Package postmortem holds dump analysis sessions: what a dump file is
// (Inspect), its identity for dedupe (ContentHash), which engine a command
// goes to (Router), the engine context a command runs under (Context), the
// cache key of a command's output (CommandKey), and the Manager of open
// sessions, each a Session that starts its engines lazily and recovers from
// their timeouts and deaths.
//
// # Terms
//
//   - engine: the program that answers commands about a dump: crash and drgn
//     for kernel dumps, gdb and lldb for process cores. drgn also reads
//     process cores.
//   - vmcore: a kernel memory dump. Three container formats reach us: an ELF
//     ET_CORE file (kdump's /proc/vmcore copied out, or QEMU's
//     dump-guest-memory), makedumpfile's compressed "KDUMP   " format, and
//     makedumpfile's flattened stream ("makedumpfile" signature, what
//     makedumpfile -F and QEMU before 8.2 write; drgn cannot read it, crash
//     can, and makedumpfile -R turns it into the compressed format).
//   - VMCOREINFO: the kernel's own description of itself (OSRELEASE,
//     BUILD-ID, symbol addresses) carried in the dump. drgn needs it; a QEMU
//     dump carries it only when the guest loaded qemu_fw_cfg and QEMU ran with
//     -device vmcoreinfo.
//   - context: the task (crash `set`), CPU (crash `set -c`), thread and frame
//     (gdb/lldb) that context-dependent commands such as bt read. Output of
//     such commands is cached per context.
//
// Engines run through internal/repl (one process group each, killed as a
// group on close); nothing here starts a process itself. Session.Exec always
// runs the command: caching outputs in the store is internal/postmortem/analysis's
// business, with the rest of what the dump tools do on a session.
package postmortem
