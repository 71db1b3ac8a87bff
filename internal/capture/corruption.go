package capture

import (
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/crashsite"
)

// A crash that looks like memory corruption is not where its bug is: a
// heap overflow or a use after free corrupts memory in one place and the
// program dies later, elsewhere (in malloc, in free, on a pointer read
// from freed memory). Such a crash is rerun under valgrind memcheck
// (memrerun.go), which names the bad access where it happens. A crash that
// is its own cause, a NULL dereference in the project's code, is not: it
// costs nothing more.

// crashFacts are what a crash left that tell memory corruption from a
// plain bug: how the program died, what the kernel said of the fault, the
// crashing thread's frames and the output's crash lines.
type crashFacts struct {
	Signal string // "SIGSEGV"; "" when the program did not die of a signal
	// SigCode is the core's si_code ("SEGV_MAPERR", "SI_KERNEL",
	// "BUS_ADRALN", "SI_USER"); "" when no core was read.
	SigCode string
	// Fault is the address the kernel said faulted; HasFault is false when
	// it said none (a signal another process sent; SI_KERNEL).
	Fault    uint64
	HasFault bool
	// Mapped: Fault lies in one of the core's file mappings (the program's
	// or a library's pages): a write to read-only data, not a wild pointer.
	Mapped     bool
	Frames     []crashsite.Frame // the crashing thread's, innermost first
	ProjectDir string
	Lines      []string // the output's crash lines (the verdict's indicators)
}

// Bounds of the rule.
const (
	// nullPage: a fault below it is a NULL pointer's (a field read through
	// NULL), which the crash site explains, not a wild pointer.
	nullPage = 4096
	// overflowDepth: a crashing thread this many frames deep ran out of
	// stack (unbounded recursion), which memcheck cannot explain better.
	overflowDepth = 1000
)

// glibcCorruption are the words of glibc's own checks on the heap and the
// stack protector, each a proof of corrupted memory.
var glibcCorruption = []string{
	"malloc(): ", "free(): ", "realloc(): ", "calloc(): ", "double free", "corrupted size vs. prev_size",
	"corrupted double-linked list", "munmap_chunk(): ", "malloc_consolidate(): ", "_int_free(): ",
	"_int_malloc(): ", "tcache_thread_shutdown(): ", "stack smashing detected", "buffer overflow detected",
	"*** Error in `",
}

// sanitizers run under a runtime valgrind cannot run, and have named the
// error already.
var sanitizers = []string{"AddressSanitizer", "MemorySanitizer", "ThreadSanitizer", "LeakSanitizer"}

// allocator are glibc's heap and stack-protector functions (as gdb names
// them once "__GI_" and "__libc_" are cut): a crash in one is a crash on
// corrupted memory.
var allocator = map[string]bool{
	"malloc": true, "free": true, "calloc": true, "realloc": true, "cfree": true, "memalign": true,
	"malloc_printerr": true, "malloc_consolidate": true, "unlink_chunk": true, "sysmalloc": true,
	"munmap_chunk": true, "tcache_get": true, "tcache_put": true, "tcache_thread_shutdown": true,
	"__stack_chk_fail": true, "__fortify_fail": true, "__chk_fail": true,
}

// looksLikeCorruption says whether a crash looks like memory corruption,
// and why in words; a NULL dereference, a signal another process sent, a
// stack overflow, an assertion or a sanitizer's report does not.
func looksLikeCorruption(f crashFacts) (bool, string) {
	if f.Signal == "" || anyContains(f.Lines, sanitizers) != "" {
		return false, ""
	}
	if l := anyContains(f.Lines, glibcCorruption); l != "" {
		return true, "glibc reported corrupted memory: " + strings.TrimSpace(l)
	}
	if len(f.Frames) >= overflowDepth {
		return false, ""
	}
	if fn := allocatorFrame(f.Frames, f.ProjectDir); fn != "" {
		return true, f.Signal + " inside the allocator (" + fn + ")"
	}
	if f.Signal != "SIGSEGV" && f.Signal != "SIGBUS" {
		return false, ""
	}
	return faultLooksWild(f)
}

// faultLooksWild reads a SIGSEGV's or SIGBUS's fault: wild when not NULL,
// not mapped, or misaligned.
func faultLooksWild(f crashFacts) (bool, string) {
	switch {
	case f.SigCode == "SI_USER" || f.SigCode == "SI_TKILL" || f.SigCode == "SI_QUEUE":
		return false, "" // sent, not a fault
	case f.SigCode == "BUS_ADRALN":
		return true, fmt.Sprintf("SIGBUS at a misaligned address %#x", f.Fault)
	case f.SigCode == "SI_KERNEL" && f.Signal == "SIGSEGV":
		return true, "SIGSEGV at a non-canonical address (a wild pointer; the kernel gives no address)"
	case f.HasFault && f.Fault < nullPage, f.HasFault && f.Mapped:
		return false, ""
	case f.HasFault:
		return true, fmt.Sprintf("%s at a wild address %#x (not NULL, not mapped)", f.Signal, f.Fault)
	case f.SigCode == "" && len(f.Frames) > 0 && inCLibrary(f.Frames[0]) && projectAbove(f.Frames[1:], f.ProjectDir):
		return true, f.Signal + " inside the C library (" + f.Frames[0].Function + "), called from the project's code"
	}
	return false, ""
}

// allocatorFrame is the allocator's function among the frames under the
// first one in the project's own code, "" when none is.
func allocatorFrame(frames []crashsite.Frame, projectDir string) string {
	for _, fr := range frames {
		if isProject(fr, projectDir) {
			return ""
		}
		// __GI___libc_free, __libc_malloc, __GI___fortify_fail
		name := strings.TrimPrefix(strings.TrimPrefix(fr.Function, "__GI_"), "__libc_")
		if allocator[name] || strings.HasPrefix(name, "_int_") {
			return fr.Function
		}
	}
	return ""
}

// inCLibrary reports a frame of the C runtime (libc, its loader, the C++
// runtime), by crashsite's rule, but not Go's or Rust's own.
func inCLibrary(fr crashsite.Frame) bool {
	if crashsite.OriginOf(fr, "") != crashsite.Runtime {
		return false
	}
	for _, p := range []string{"runtime.", "core::", "alloc::", "std::panicking", "<core::", "<alloc::"} {
		if strings.HasPrefix(fr.Function, p) {
			return false
		}
	}
	return true
}

func projectAbove(frames []crashsite.Frame, projectDir string) bool {
	for _, fr := range frames {
		if isProject(fr, projectDir) {
			return true
		}
	}
	return false
}

func isProject(fr crashsite.Frame, projectDir string) bool {
	return fr.HasSource() && crashsite.OriginOf(fr, projectDir) == crashsite.Project
}

// anyContains is the first line holding one of words, "" when none does.
func anyContains(lines, words []string) string {
	for _, l := range lines {
		for _, w := range words {
			if strings.Contains(l, w) {
				return l
			}
		}
	}
	return ""
}

// factsOf gathers a local run's crash facts: its signal, its core's
// fault, its backtrace and its crash lines. A run ended by its time limit
// or a cancellation died of our signal, not of a crash: it has none.
func factsOf(o *Outcome, projectDir string) crashFacts {
	f := crashFacts{ProjectDir: projectDir}
	if r := o.Result; r == nil || !r.Signaled || r.TimedOut || r.Cancelled {
		return f
	}
	f.Signal = o.Result.SignalName
	if ci := o.coreInfo; ci != nil {
		f.SigCode, f.Fault, f.HasFault = ci.SigCode, ci.FaultAddr, ci.HasFaultAddr
		f.Mapped = f.HasFault && mapped(ci.Mappings, ci.FaultAddr)
	}
	if o.Trace != nil {
		f.Frames = coredump.SiteFrames(o.Trace.Frames)
	}
	for _, in := range o.Verdict.Indicators {
		f.Lines = append(f.Lines, in.Line)
	}
	return f
}

func mapped(maps []coredump.Mapping, addr uint64) bool {
	for _, m := range maps {
		if addr >= m.Start && addr < m.End {
			return true
		}
	}
	return false
}
