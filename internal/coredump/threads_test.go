package coredump

import "testing"

const gdbAllThreads = `[New LWP 18459]
__futex_abstimed_wait_common64 (private=128, cancel=true) at ./nptl/futex-internal.c:57
57	./nptl/futex-internal.c: No such file or directory.

Thread 3 (Thread 0x7f1e36f4b6c0 (LWP 18460) "abba"):
#0  futex_wait (private=0, expected=2, futex_word=0x5638686ff060 <a>) at ../sysdeps/nptl/futex-internal.h:146
#3  ___pthread_mutex_lock (mutex=0x5638686ff060 <a>) at ./nptl/pthread_mutex_lock.c:93
#4  0x00005638686fc1f1 in two (x=0x0) at abba.c:14

Thread 1 (Thread 0x7f1e3774d740 (LWP 18455) "a (b) \"c"):
#0  __futex_abstimed_wait_common64 (private=128) at ./nptl/futex-internal.c:57
#4  0x00005638686fc263 in main () at abba.c:22
[Inferior 1 (process 18455) detached]
`

const lldbAllThreads = `(lldb) bt all
* thread #1, name = 'abba', stop reason = signal SIGSTOP
  * frame #0: 0x00007f1e377d5f7b libc.so.6` + "`" + `__futex_abstimed_wait_common + 102
    frame #1: 0x00005638686fc263 abba` + "`" + `main at abba.c:22:2
  thread #2, name = 'abba', stop reason = signal SIGSTOP
    frame #0: 0x00005638686fc1b2 abba` + "`" + `one(x=0x0) at abba.c:8:2
`

func TestParseGDBThreads(t *testing.T) {
	th := ParseGDBThreads(gdbAllThreads)
	if len(th) != 2 {
		t.Fatalf("got %+v", th)
	}
	if th[0].ID != 3 || th[0].LWP != 18460 || th[0].Name != "abba" || len(th[0].Frames) != 3 {
		t.Errorf("thread 3: %+v", th[0])
	}
	if f := th[0].Frames[2]; f.Function != "two" || f.File != "abba.c" || f.Line != 14 {
		t.Errorf("frame: %+v", f)
	}
	if th[1].ID != 1 || th[1].LWP != 18455 || len(th[1].Frames) != 2 {
		t.Errorf("thread 1: %+v", th[1])
	}
	for _, in := range []string{"", "Thread x", "Thread 1 (", "Thread 1 ():\n#", "#0 main () at a.c:1"} {
		ParseGDBThreads(in) // hostile input: no panic
	}
}

func TestParseLLDBThreads(t *testing.T) {
	th := ParseLLDBThreads(lldbAllThreads)
	if len(th) != 2 || th[0].ID != 1 || th[0].Name != "abba" || len(th[0].Frames) != 2 || th[1].ID != 2 {
		t.Fatalf("got %+v", th)
	}
	if f := th[1].Frames[0]; f.Function != "one" || f.File != "abba.c" || f.Line != 8 {
		t.Errorf("frame %+v", f)
	}
}
