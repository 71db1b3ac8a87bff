package capture

import (
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/crashsite"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/verdict"
)

// Frames as gdb gives them with glibc's debug info installed (files
// relative to glibc's build) and without it (a module, no file).
var (
	projectFrame = crashsite.Frame{Function: "sum", File: "/src/list.c", Line: 12}
	mainFrame    = crashsite.Frame{Function: "main", File: "/src/list.c", Line: 30}
	abortFrames  = []crashsite.Frame{
		{Function: "__pthread_kill_implementation", File: "./nptl/pthread_kill.c", Line: 44},
		{Function: "__GI_raise", File: "../sysdeps/posix/raise.c", Line: 26},
		{Function: "__GI_abort", File: "./stdlib/abort.c", Line: 79},
	}
)

func frames(fs ...[]crashsite.Frame) []crashsite.Frame {
	var out []crashsite.Frame
	for _, f := range fs {
		out = append(out, f...)
	}
	return out
}

func one(f ...crashsite.Frame) []crashsite.Frame { return f }

// deep is a stack overflow's backtrace: one function, n frames.
func deep(n int) []crashsite.Frame {
	out := make([]crashsite.Frame, n)
	for i := range out {
		out[i] = crashsite.Frame{Function: "recurse", File: "/src/so.c", Line: 6}
	}
	return out
}

// TestLooksLikeCorruption: the crashes whose cause is elsewhere (glibc's
// heap and stack checks, a crash in the allocator, a wild, non-canonical or
// misaligned address, a crash in libc on an address not known) are rerun;
// a NULL or near-NULL dereference, a signal sent by kill, a write to
// mapped read-only pages, a stack overflow, an assertion, a sanitizer's
// report and a program that did not die of a signal are not.
func TestLooksLikeCorruption(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    crashFacts
		want string // "" for no; else in the reason
	}{
		{"NULL in the project", crashFacts{Signal: "SIGSEGV", SigCode: "SEGV_MAPERR", HasFault: true, Frames: one(projectFrame, mainFrame)}, ""},
		{"near NULL: a field of a NULL struct", crashFacts{Signal: "SIGSEGV", SigCode: "SEGV_MAPERR", Fault: 0x8, HasFault: true, Frames: one(projectFrame)}, ""},
		{"the last near-NULL byte", crashFacts{Signal: "SIGSEGV", SigCode: "SEGV_MAPERR", Fault: 0xfff, HasFault: true, Frames: one(projectFrame)}, ""},
		{"the first wild page", crashFacts{Signal: "SIGSEGV", SigCode: "SEGV_MAPERR", Fault: 0x1000, HasFault: true, Frames: one(projectFrame)}, "wild address 0x1000"},
		{"wild: a freed node's pointer", crashFacts{Signal: "SIGSEGV", SigCode: "SEGV_MAPERR", Fault: 0x56456725c, HasFault: true, Frames: one(projectFrame, mainFrame)},
			"SIGSEGV at a wild address 0x56456725c (not NULL, not mapped)"},
		{"a string literal written: mapped", crashFacts{Signal: "SIGSEGV", SigCode: "SEGV_ACCERR", Fault: 0x555555556004, HasFault: true, Mapped: true, Frames: one(projectFrame)}, ""},
		{"non-canonical", crashFacts{Signal: "SIGSEGV", SigCode: "SI_KERNEL", Frames: one(projectFrame)}, "non-canonical"},
		{"misaligned", crashFacts{Signal: "SIGBUS", SigCode: "BUS_ADRALN", Fault: 0x7f0000000003, HasFault: true, Frames: one(projectFrame)}, "misaligned address 0x7f0000000003"},
		{"past a mapped file's end", crashFacts{Signal: "SIGBUS", SigCode: "BUS_ADRERR", Fault: 0x7f0000001000, HasFault: true, Mapped: true, Frames: one(projectFrame)}, ""},
		{"kill(getpid(), SIGSEGV)", crashFacts{Signal: "SIGSEGV", SigCode: "SI_USER",
			Frames: one(crashsite.Frame{Function: "__GI_kill", File: "../sysdeps/unix/syscall-template.S", Line: 120}, mainFrame)}, ""},
		{"malloc(): corrupted top size", crashFacts{Signal: "SIGABRT", SigCode: "SI_TKILL", Lines: []string{"malloc(): corrupted top size"}, Frames: abortFrames},
			"glibc reported corrupted memory: malloc(): corrupted top size"},
		{"tcache double free", crashFacts{Signal: "SIGABRT", Lines: []string{"free(): double free detected in tcache 2"}}, "double free detected"},
		{"double free or corruption", crashFacts{Signal: "SIGABRT", Lines: []string{"double free or corruption (out)"}}, "double free or corruption (out)"},
		{"prev_size", crashFacts{Signal: "SIGABRT", Lines: []string{"corrupted size vs. prev_size"}}, "prev_size"},
		{"stack smashing", crashFacts{Signal: "SIGABRT", Lines: []string{"*** stack smashing detected ***: terminated"}}, "stack smashing"},
		{"glibc's message sent with kill: the words decide", crashFacts{Signal: "SIGSEGV", SigCode: "SI_USER", Lines: []string{"free(): invalid pointer"}}, "free(): invalid pointer"},
		{"abort in malloc_printerr, its message lost", crashFacts{Signal: "SIGABRT", SigCode: "SI_TKILL",
			Frames: frames(abortFrames, one(crashsite.Frame{Function: "malloc_printerr", File: "./malloc/malloc.c", Line: 5662},
				crashsite.Frame{Function: "_int_free", File: "./malloc/malloc.c", Line: 4500}, mainFrame))}, "inside the allocator (malloc_printerr)"},
		{"SIGSEGV in _int_malloc near NULL", crashFacts{Signal: "SIGSEGV", SigCode: "SEGV_MAPERR", Fault: 0x10, HasFault: true,
			Frames: one(crashsite.Frame{Function: "_int_malloc", File: "./malloc/malloc.c", Line: 4000}, crashsite.Frame{Function: "__GI___libc_malloc", File: "./malloc/malloc.c", Line: 3315}, mainFrame)},
			"SIGSEGV inside the allocator (_int_malloc)"},
		{"SIGSEGV in free, no debug info", crashFacts{Signal: "SIGSEGV", SigCode: "SEGV_MAPERR", Fault: 0x7, HasFault: true,
			Frames: one(crashsite.Frame{Function: "free", Module: "/lib/x86_64-linux-gnu/libc.so.6"}, mainFrame)}, "inside the allocator (free)"},
		{"the allocator above the project's frame is not the crash's", crashFacts{Signal: "SIGSEGV", SigCode: "SEGV_MAPERR", HasFault: true,
			Frames: one(projectFrame, crashsite.Frame{Function: "malloc", Module: "/lib/x86_64-linux-gnu/libc.so.6"})}, ""},
		{"strlen(NULL): libc on NULL", crashFacts{Signal: "SIGSEGV", SigCode: "SEGV_MAPERR", HasFault: true,
			Frames: one(crashsite.Frame{Function: "__strlen_avx2", Module: "/lib/x86_64-linux-gnu/libc.so.6"}, projectFrame)}, ""},
		{"memcpy in libc, no core notes", crashFacts{Signal: "SIGSEGV",
			Frames: one(crashsite.Frame{Function: "__memmove_avx_unaligned_erms", Module: "/lib/x86_64-linux-gnu/libc.so.6"}, projectFrame)},
			"inside the C library (__memmove_avx_unaligned_erms), called from the project's code"},
		{"in the project, no core notes", crashFacts{Signal: "SIGSEGV", Frames: one(projectFrame)}, ""},
		{"no core at all", crashFacts{Signal: "SIGSEGV"}, ""},
		{"stack overflow", crashFacts{Signal: "SIGSEGV", SigCode: "SEGV_MAPERR", Fault: 0x7fff91129f2c, HasFault: true, Frames: deep(overflowDepth)}, ""},
		{"assertion", crashFacts{Signal: "SIGABRT", SigCode: "SI_TKILL", Lines: []string{"a.out: t.c:4: check: Assertion `x == 2' failed."},
			Frames: frames(abortFrames, one(crashsite.Frame{Function: "__assert_fail", File: "./assert/assert.c", Line: 101}, projectFrame))}, ""},
		{"SIGFPE", crashFacts{Signal: "SIGFPE", SigCode: "FPE_INTDIV", Fault: 0x555555555139, HasFault: true, Frames: one(projectFrame)}, ""},
		{"AddressSanitizer said it", crashFacts{Signal: "SIGABRT", Lines: []string{"==1==ERROR: AddressSanitizer: heap-use-after-free on address", "double free or corruption"}}, ""},
		{"no signal: glibc's words alone", crashFacts{Lines: []string{"malloc(): corrupted top size"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why := looksLikeCorruption(tc.f)
			if got != (tc.want != "") || !strings.Contains(why, tc.want) || got == (why == "") {
				t.Errorf("looksLikeCorruption = %v, %q; want %v with %q", got, why, tc.want != "", tc.want)
			}
		})
	}
}

// factsOf reads the core's fault (and whether its address is in a file
// mapping), the backtrace and the crash lines of a run that died of a
// signal; a run that exited, or that its time limit killed, has none.
func TestFactsOf(t *testing.T) {
	o := &Outcome{Result: &spawn.Result{Signaled: true, SignalName: "SIGSEGV"},
		coreInfo: &coredump.CoreInfo{SigCode: "SEGV_ACCERR", FaultAddr: 0x2010, HasFaultAddr: true,
			Mappings: []coredump.Mapping{{Start: 0x1000, End: 0x2000}, {Start: 0x2000, End: 0x3000}}},
		Trace:   &coredump.Trace{Frames: []coredump.Frame{{Function: "sum", File: "list.c", Line: 12}}},
		Verdict: verdict.Verdict{Indicators: []verdict.Indicator{{Line: "free(): invalid pointer"}}}}
	f := factsOf(o, "/src")
	if f.Signal != "SIGSEGV" || f.SigCode != "SEGV_ACCERR" || f.Fault != 0x2010 || !f.HasFault || !f.Mapped ||
		len(f.Frames) != 1 || f.Frames[0].Function != "sum" || len(f.Lines) != 1 || f.ProjectDir != "/src" {
		t.Errorf("facts %+v", f)
	}
	o.coreInfo.FaultAddr = 0x3000
	if f := factsOf(o, ""); f.Mapped {
		t.Errorf("0x3000 is past the mappings: %+v", f)
	}
	for _, r := range []*spawn.Result{{Exited: true, ExitCode: 134}, {Signaled: true, SignalName: "SIGKILL", TimedOut: true}} {
		if f := factsOf(&Outcome{Result: r, Verdict: o.Verdict}, ""); f.Signal != "" || f.Lines != nil {
			t.Errorf("%s: facts %+v", r, f)
		}
	}
}

// The rerun gets 20 times the run's time, at least 10 s, at most a minute.
func TestMemcheckLimit(t *testing.T) {
	for ran, want := range map[time.Duration]time.Duration{
		time.Millisecond: 10 * time.Second, time.Second: 20 * time.Second, 3 * time.Second: time.Minute, time.Hour: time.Minute,
	} {
		if got := memcheckLimit(ran); got != want {
			t.Errorf("memcheckLimit(%s) = %s, want %s", ran, got, want)
		}
	}
}
