package hang

import (
	"github.com/triage-dev/triage/internal/coredump"
	"strings"
	"testing"
)

const dump = `=== RUN   TestWaitsForever
SIGQUIT: quit
PC=0x48c221 m=0 sigcode=0

goroutine 1 gp=0xbf993f401e0 m=nil [chan receive]:
testing.(*T).Run(0xbf994020248, {0x587ba2?, 0x0?}, 0x592e10)
	/usr/local/go/src/testing/testing.go:2109 +0x4e5 fp=0xbf99400ab08 sp=0xbf99400aa30 pc=0x4eba65
main.main()
	_testmain.go:46 +0x9b fp=0xbf99400af48 sp=0xbf99400aec8 pc=0x52e45b

goroutine 2 gp=0xbf993f40780 m=nil [force gc (idle), 3 minutes]:
created by runtime.init.7 in goroutine 1

goroutine 18 [sync.Mutex.Lock]:
internal/sync.runtime_SemacquireMutex(0x0?, 0x0?, 0x0?)
	/usr/local/go/src/runtime/sema.go:95 +0x25
sync.(*Mutex).Lock(...)
	/usr/local/go/src/sync/mutex.go:46
example.com/m/hang.TestWaitsForever.func1(0xbf994020488?)
	/src/m/hang_test.go:7 +0x25 fp=0xbf993f72770 sp=0xbf993f72750 pc=0x52e325
...additional frames elided...
created by testing.(*T).Run in goroutine 1
	/usr/local/go/src/testing/testing.go:2101 +0x4c5

rax    0xca
`

func TestParseGoroutines(t *testing.T) {
	for name, in := range map[string]string{"plain": dump, "go test -json": jsonWrap(dump)} {
		t.Run(name, func(t *testing.T) {
			st := ParseGoroutines([]byte(in))
			if len(st) != 3 {
				t.Fatalf("got %d goroutines: %+v", len(st), st)
			}
			g := st[2]
			if g.ID != 18 || g.State != "sync.Mutex.Lock" || len(g.Frames) != 3 || g.CreatedBy != "testing.(*T).Run" {
				t.Fatalf("goroutine 18: %+v", g)
			}
			if f := g.Frames[2]; f.Function != "example.com/m/hang.TestWaitsForever.func1" || f.File != "/src/m/hang_test.go" || f.Line != 7 {
				t.Errorf("frame %+v", f)
			}
			if st[1].State != "force gc (idle)" || len(st[1].Frames) != 0 {
				t.Errorf("goroutine 2: %+v", st[1])
			}
			rep := &Report{Stacks: st}
			// Goroutine 2 is the runtime's own, 1 the harness's waiting
			// for the test: none is left to unlock the mutex.
			if got := Phrase(rep.Analyze("TestWaitsForever/sub")); got != "in TestWaitsForever/sub, blocked in sync.Mutex.Lock at hang_test.go:7; no other goroutine is left that could unlock it" {
				t.Errorf("phrase %q", got)
			}
		})
	}
}

func jsonWrap(s string) string {
	var b strings.Builder
	for _, ln := range strings.SplitAfter(s, "\n") {
		if ln == "" {
			continue
		}
		q := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\t", `\t`, "\n", `\n`).Replace(ln)
		b.WriteString(`{"Action":"output","Package":"hang","Output":"` + q + "\"}\n")
	}
	return b.String()
}

// TestParseGoroutinesHostile: truncated and garbled dumps give what they
// hold, never a panic.
func TestParseGoroutinesHostile(t *testing.T) {
	for _, in := range []string{"", "goroutine", "goroutine x [y]:", "goroutine 1 [", "goroutine 1 [a]:\n\t:0\n(\n", dump[:200], `{"Output":` + "\n{\"Output\":\"goroutine 3 [select]:\\n\"}"} {
		for _, st := range ParseGoroutines([]byte(in)) {
			if st.Kind != KindGoroutine {
				t.Errorf("%q: %+v", in, st)
			}
		}
	}
}

func TestUserFrame(t *testing.T) {
	for _, c := range []struct {
		fn, file string
		user     bool
	}{
		{"main.main", "/home/u/proj/main.go", true},
		{"hang.TestX", "/tmp/x/hang_test.go", true}, // a module named without a dot
		{"runtime.gopark", "/usr/local/go/src/runtime/proc.go", false},
		{"sync.runtime_SemacquireMutex", "/usr/lib/go-1.22/src/runtime/sema.go", false},
		{"net/http.(*Server).Serve", "/usr/local/go/src/net/http/server.go", false},
		{"main.main", "_testmain.go", false},
		{"github.com/x/y.F", "/root/go/pkg/mod/github.com/x/y@v1.0.0/y.go", false},
		{"one", "abba.c", true},
		{"___pthread_mutex_lock", "./nptl/pthread_mutex_lock.c", false},
		{"std::thread::park", "/rustc/abc/library/std/src/thread/mod.rs", false},
		{"spinner::spin", "src/lib.rs", true},
	} {
		f := frameAt(c.fn, c.file)
		if got := isUserFrame(f); got != c.user {
			t.Errorf("isUserFrame(%s at %s) = %v", c.fn, c.file, got)
		}
	}
}

func frameAt(fn, file string) coredump.Frame {
	return coredump.Frame{Function: fn, File: file, Line: 3}
}

// TestThreadOnItsWayIntoALock: the kernel saw a thread running a moment
// before the debugger stopped it inside pthread_mutex_lock; the frames win.
func TestThreadOnItsWayIntoALock(t *testing.T) {
	lock := []coredump.Frame{
		{Function: "futex_wait", File: "../sysdeps/nptl/futex-internal.h", Line: 146},
		{Function: "___pthread_mutex_lock", File: "./nptl/pthread_mutex_lock.c", Line: 93},
	}
	rep := &Report{Stacks: []Stack{
		{Kind: KindThread, ID: 1, Pid: 7, LWP: 7, Frames: []coredump.Frame{frameAt("main", "m.c")}},
		{Kind: KindThread, ID: 3, State: "running", Frames: append(lock, frameAt("two", "m.c"))},
		{Kind: KindThread, ID: 2, Frames: append(lock, frameAt("one", "m.c"))},
		{Kind: KindThread, ID: 4, State: "running", Frames: []coredump.Frame{{Function: "memcpy", File: "./string/memcpy.S", Line: 1}, frameAt("spin", "m.c")}},
	}}
	if got, want := Phrase(rep.Analyze("")), "deadlocked: one blocked in pthread_mutex_lock at m.c:3; two blocked in pthread_mutex_lock at m.c:3"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	rep.Stacks = rep.Stacks[2:]
	if got, want := Phrase(rep.Analyze("")), "in spin, running at m.c:3"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestDeadlockInATestNamedAsItsProgram: a CTest test named as its
// program names every thread; the deadlock is the answer, not the first
// thread bearing the name (main, waiting to join).
func TestDeadlockInATestNamedAsItsProgram(t *testing.T) {
	lock := []coredump.Frame{{Function: "___pthread_mutex_lock", File: "./nptl/pthread_mutex_lock.c", Line: 93}}
	rep := &Report{Stacks: []Stack{
		{Kind: KindThread, ID: 1, Pid: 7, LWP: 7, Name: "abba", Frames: []coredump.Frame{{Function: "__pthread_clockjoin_ex", File: "./nptl/pthread_join_common.c", Line: 102}, frameAt("main", "m.c")}},
		{Kind: KindThread, ID: 2, Name: "abba", Frames: append(lock, frameAt("one", "m.c"))},
		{Kind: KindThread, ID: 3, Name: "abba", Frames: append(lock, frameAt("two", "m.c"))},
	}}
	if got, want := Phrase(rep.Analyze("abba")), "deadlocked: one blocked in pthread_mutex_lock at m.c:3; two blocked in pthread_mutex_lock at m.c:3"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
