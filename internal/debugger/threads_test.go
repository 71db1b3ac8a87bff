package debugger

import (
	"fmt"
	"strings"
	"testing"
)

func TestCallWords(t *testing.T) {
	for fn, want := range map[string]string{
		"___pthread_mutex_lock":     "blocked in pthread_mutex_lock",
		"__pthread_clockjoin_ex":    "blocked in pthread_join",
		"__GI___nanosleep":          "blocked in nanosleep",
		"__libc_pause":              "blocked in pause",
		"runtime.chanrecv1":         "blocked in chan receive",
		"sync.(*Mutex).Lock":        "blocked in sync.(*Mutex).Lock",
		"sync.(*WaitGroup).Wait":    "blocked in sync.(*WaitGroup).Wait",
		"__memcpy_avx_unaligned":    "in memcpy_avx_unaligned",
		"std::vector<int>::at(int)": "in std::vector<int>::at(int)",
		"":                          "in ",
	} {
		if got := callWords(fn); got != want {
			t.Errorf("callWords(%q) = %q, want %q", fn, got, want)
		}
	}
}

// The program's own frame is found below glibc's, whichever way the
// debugger names glibc's sources (lldb-dap: relative to its build; lldb's
// command line: a base name in libc.so.6; gdb: ./nptl/…).
func TestOwnFrame(t *testing.T) {
	for name, frames := range map[string][]Frame{
		"lldb-dap": {{Function: "futex_wait", File: "sysdeps/nptl/futex-internal.h", Line: 146},
			{Function: "___pthread_mutex_lock", File: "nptl/pthread_mutex_lock.c", Line: 93}, {Function: "one", File: "/src/abba.c", Line: 39}},
		"lldb": {{Function: "futex_wait", File: "futex-internal.h", Line: 146, Module: "libc.so.6"},
			{Function: "___pthread_mutex_lock", File: "pthread_mutex_lock.c", Line: 93, Module: "libc.so.6"}, {Function: "one", File: "abba.c", Line: 39, Module: "abba"}},
		"gdb": {{Function: "futex_wait", File: "./nptl/futex-internal.h", Line: 146},
			{Function: "___pthread_mutex_lock", File: "./nptl/pthread_mutex_lock.c", Line: 93}, {Function: "one", File: "abba.c", Line: 39}},
	} {
		if got := OwnFrame(frames); got != 2 {
			t.Errorf("%s: own frame %d, want 2", name, got)
		}
	}
	if got := OwnFrame([]Frame{{Function: "runtime.gopark", File: "/usr/local/go/src/runtime/proc.go", Line: 463}}); got != -1 {
		t.Errorf("a runtime goroutine's own frame: %d, want -1", got)
	}
}

// A stop's summary names a few other threads, the program's own first,
// then says how many more; a number the text gives is one Resolve takes.
func TestSummaryIsBounded(t *testing.T) {
	l := ThreadList{Stopped: 1}
	for id := 1; id <= 10; id++ {
		th := Thread{ID: id, Num: id, Frame: &Frame{Function: "runtime.gopark", File: "proc.go", Line: 463}}
		if id%3 == 0 {
			th.Own, th.State = true, "blocked in chan receive"
			th.Frame = &Frame{Function: fmt.Sprintf("main.worker%d", id), File: "/src/main.go", Line: id}
		}
		l.Threads = append(l.Threads, th)
	}
	want := "in thread #1 of 10; 9 other threads:\n" +
		"  #3 main.worker3 blocked in chan receive at main.go:3\n" +
		"  #6 main.worker6 blocked in chan receive at main.go:6\n" +
		"  #9 main.worker9 blocked in chan receive at main.go:9\n" +
		"  #2 in runtime.gopark at proc.go:463\n" +
		"  … 5 more (debug_stack lists them)\n"
	if got := l.Summary(); got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
	if id, err := l.Resolve(9); err != nil || id != 9 {
		t.Errorf("Resolve(9) = %d, %v", id, err)
	}
	if _, err := l.Resolve(11); err == nil || !strings.Contains(err.Error(), "no thread 11: the threads are #1, #2,") {
		t.Errorf("Resolve(11): %v", err)
	}
	var sb strings.Builder
	l.Threads = append(l.Threads, make([]Thread, 2*MaxThreadsListed)...)
	l.WriteList(&sb, 1)
	if lines := strings.Count(sb.String(), "\n"); lines != MaxThreadsListed+2 || !strings.Contains(sb.String(), "… 26 more") {
		t.Errorf("a long list is not cut at %d:\n%s", MaxThreadsListed, sb.String())
	}
}
