package debugger

import (
	"reflect"
	"testing"
)

func TestParseLLDBThreads(t *testing.T) {
	out := "Process 409 stopped\n" +
		"* thread #1: tid = 409, 0x00005555555551f8 threads`main at threads.c:19:9, name = 'threads', stop reason = breakpoint 1.1\n" +
		"  thread #2: tid = 434, 0x00007ffff7ea5df2 libc.so.6`__libc_pause at pause.c:29:10, name = 'worker', stop reason = signal SIGSTOP\n" +
		"  thread #3: tid = 0x1b3, 0x0000000100003f50 a.out`spin + 16\n" // macOS writes tids in hex, and a thread may be unnamed
	want := []Thread{
		{ID: 1, Num: 1, Tid: 409, Name: "threads", Reason: "breakpoint 1.1"},
		{ID: 2, Num: 2, Tid: 434, Name: "worker", Reason: "signal SIGSTOP"},
		{ID: 3, Num: 3, Tid: 435},
	}
	if got := ParseLLDBThreads(out, false); !reflect.DeepEqual(got, want) {
		t.Errorf("by #N: %+v, want %+v", got, want)
	}
	for i := range want {
		want[i].ID = int(want[i].Tid)
	}
	if got := ParseLLDBThreads(out, true); !reflect.DeepEqual(got, want) {
		t.Errorf("by tid: %+v, want %+v", got, want)
	}
	if got := ParseLLDBThreads("error: invalid process\n", false); len(got) != 0 {
		t.Errorf("no thread list: %+v", got)
	}
}
