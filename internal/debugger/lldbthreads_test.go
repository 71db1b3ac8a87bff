package debugger

import (
	"reflect"
	"testing"
)

func TestParseLLDBThreads(t *testing.T) {
	out := "Process 409 stopped\n" +
		"* thread #1: tid = 409, 0x00005555555551f8 threads`main at threads.c:19:9, name = 'threads', stop reason = breakpoint 1.1\n" +
		"  thread #2: tid = 434, 0x00007ffff7ea5df2 libc.so.6`__libc_pause at pause.c:29:10, name = 'worker'\n" +
		"  thread #3: tid = 0x1b3, 0x0000000100003f50 a.out`spin + 16\n" // macOS writes tids in hex, and a thread may be unnamed
	if got, want := ParseLLDBThreads(out, false), []Thread{{1, "tid 409 threads"}, {2, "tid 434 worker"}, {3, "tid 435"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("by #N: %+v, want %+v", got, want)
	}
	if got, want := ParseLLDBThreads(out, true), []Thread{{409, "#1 threads"}, {434, "#2 worker"}, {435, "#3"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("by tid: %+v, want %+v", got, want)
	}
	if got := ParseLLDBThreads("error: invalid process\n", false); len(got) != 0 {
		t.Errorf("no thread list: %+v", got)
	}
}
