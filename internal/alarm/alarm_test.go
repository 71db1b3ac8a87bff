package alarm

import (
	"strings"
	"testing"
)

// says are real lines from runners, shells, runtimes and sanitizers, each
// with the word of the table it must be read as (the first in the line of
// the most severe class), and that class.
var says = []struct {
	line, word string
	class      Class
}{
	// meson test
	{"2/5 seg  FAIL            0.02s   killed by signal 11 SIGSEGV", "killed by signal", Crash},
	{"3/5 ab   FAIL            0.01s   killed by signal 6 SIGABRT", "killed by signal", Crash},
	{"5/5 hang TIMEOUT         2.01s   killed by signal 15 SIGTERM", "TIMEOUT", Timeout},
	{"5/5 hang FAIL 2.01s   killed by signal 15 SIGTERM after TIMEOUT", "killed by signal", Timeout},
	{"4/5 fail FAIL            0.01s   exit status 1", "FAIL", Failure},
	{"Fail:               3   ", "fail", Failure},
	{"Timeout:            1   ", "timeout", Timeout},
	{"Unexpected Pass:    1", "Unexpected Pass:", Failure},
	{"1/1 t UNEXPECTEDPASS  0.01s", "UNEXPECTEDPASS", Failure},
	// CTest
	{"1/1 Test #1: slow .............***Timeout  30.06 sec", "***Timeout", Timeout},
	{"2/3 Test #2: crash ............***Exception: SegFault  0.01 sec", "***Exception:", Crash},
	{"67% tests passed, 1 tests failed out of 3", "failed", Failure},
	{"The following tests FAILED:", "FAILED", Failure},
	// automake, TAP
	{"FAIL: test-version", "FAIL", Failure},
	{"# FAIL:  2", "FAIL", Failure},
	{"ERROR: t-api", "ERROR", Failure},
	{"XPASS: t-known-bug", "XPASS", Failure},
	{"not ok 3 - parses a flow sequence", "not ok", Failure},
	{"    not ok 1 - subtest", "not ok", Failure},
	{"Bail out! no database", "Bail out!", Failure},
	// frameworks
	{"[  FAILED  ] MathTest.Add (0 ms)", "FAILED", Failure},
	{"test cases: 2 | 1 passed | 1 failed", "failed", Failure},
	{"5 Tests 1 Failures 0 Ignored", "failures", Failure},
	{"[----] test_list.c:12: Caught signal SIGSEGV", "Caught signal", Crash},
	{"[----] test_list.c:12: SIGSEGV", "SIGSEGV", Crash},
	{"  due to a fatal error condition:\tSIGSEGV - Segmentation violation signal", "SIGSEGV", Crash},
	{"Segmentation violation", "Segmentation violation", Crash},
	{"[FAIL] list::insert: CRASH!", "CRASH", Crash},
	{"FAILED (failures=1)", "FAILED", Failure},
	{"Tests: 4 | Errors: 2", "errors", Failure},
	{"unknown location(0): fatal error: in \"t\": signal: SIGSEGV (memory access violation)", "SIGSEGV", Crash},
	{"Test terminated by signal 9", "terminated by signal", Crash},
	{"Program received signal SIGBUS, Bus error.", "received signal", Crash},
	{"caught signal 11 while running t", "caught signal", Crash},
	{"Caught signal 6", "Caught signal", Crash},
	// shells, make
	{"Segmentation fault (core dumped)", "Segmentation fault", Crash},
	{"bash: line 1: 4242 Aborted                 (core dumped) ./a.out", "Aborted", Crash},
	{"sh: 1: 99 Killed (core dumped)", "core dumped", Crash},
	{"bash: line 1: 4242 Aborted                 ./a.out", "Aborted", Crash},
	{"Aborted", "Aborted", Crash},
	{"make: *** [Makefile:17: test] Aborted", "Aborted", Crash},
	{"/bin/sh: 1: ./t: segmentation fault", "segmentation fault", Crash},
	{"Bus error", "Bus error", Crash},
	{"./run.sh: line 3: 17 Illegal instruction     ./t", "Illegal instruction", Crash},
	{"Floating point exception", "Floating point exception", Crash},
	{"sh: 1: 99 Killed core dumped", "core dumped", Crash},
	// sanitizers, runtimes, libc
	{"==4242==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602", "ERROR: AddressSanitizer", Crash},
	{"==1==ERROR: HWAddressSanitizer: tag-mismatch", "ERROR: HWAddressSanitizer", Crash},
	{"==9==ERROR: LeakSanitizer: detected memory leaks", "ERROR: LeakSanitizer", Crash},
	{"WARNING: ThreadSanitizer: data race (pid=1)", "WARNING: ThreadSanitizer", Crash},
	{"==2==WARNING: MemorySanitizer: use-of-uninitialized-value", "WARNING: MemorySanitizer", Crash},
	{"lib.c:12:9: runtime error: signed integer overflow", ": runtime error: ", Crash},
	{"WARNING: DATA RACE", "WARNING: DATA RACE", Crash},
	{"panic: runtime error: invalid memory address or nil pointer dereference", "panic: ", Crash},
	{"panic: injected", "panic: ", Crash},
	{"panic: test timed out after 30s", "panic: ", Timeout},
	{"thread 'main' panicked at src/lib.rs:4:5:", " panicked at ", Crash},
	{"thread 'x' has overflowed its stack", "has overflowed its stack", Crash},
	{"fatal error: all goroutines are asleep - deadlock!", "fatal error: ", Crash},
	{"x.c:1:10: fatal error: y.h: No such file or directory", "fatal error: ", Failure},
	{"Fatal Python error: Segmentation fault", "Fatal Python error", Crash},
	{"Segmentation fault", "Segmentation fault", Crash},
	{"Fatal Python error: cannot recover", "Fatal Python error", Crash},
	{"terminate called after throwing an instance of 'std::out_of_range'", "terminate called", Crash},
	{"libc++abi: terminating due to uncaught exception", "libc++abi: terminating", Crash},
	{"t: t.c:5: main: Assertion `x > 0' failed.", "Assertion", Crash},
	{"Assertion failed: (x > 0), function main, file t.c, line 5.", "Assertion", Crash},
	{"*** stack smashing detected ***: terminated", "stack smashing detected", Crash},
	{"double free or corruption (out)", "double free or corruption", Crash},
	{"corrupted size vs. prev_size", "corrupted size vs. prev_size", Crash},
	{"free(): invalid pointer", "free(): invalid", Crash},
	{"malloc(): corrupted top size", "malloc(): ", Crash},
	{"SIGABRT: abort", "SIGABRT", Crash},
	{"signal SIGILL at 0x0", "SIGILL", Crash},
	{"SIGFPE: integer divide by zero", "SIGFPE", Crash},
	{"SIGSYS: bad system call", "SIGSYS", Crash},
	{"Trace/breakpoint trap SIGTRAP", "SIGTRAP", Crash},
	{"got SIGIOT", "SIGIOT", Crash},
	{"signal: SIGBUS", "SIGBUS", Crash},
	{"  7/12 t_slow TIMEOUT 30.16s", "TIMEOUT", Timeout},
	{"Traceback (most recent call last):", "Traceback (most recent call last)", Failure},
	// counts
	{"FAILURE: 2 tests", "FAILURE", Failure},
	{"FAILURES!!!", "FAILURES", Failure},
	{"Tests run: 3, Failures: 1", "failures", Failure},
	{"fails: 1", "fails", Failure},
	{"failure: 1", "failure", Failure},
	{"2 failing", "failing", Failure},
	{"1 error generated.", "error", Failure},
	{"errored=1", "errored", Failure},
	{"crashes: 1", "crashes", Crash},
	{"1 crash", "crash", Crash},
	{"crashed: 2", "crashed", Crash},
	{"timeouts: 1", "timeouts", Timeout},
	{"timedout=1", "timedout", Timeout},
	{"Test timed out after 5 s", "timed out", Timeout},
	{"CRASHED", "CRASHED", Crash},
}

// quiet are lines that hold a word of the table's letters and say nothing
// went wrong.
var quiet = []string{
	"1/5 ok   OK              0.02s",
	"Ok:                 4   ",
	"Expected Fail:      1   ",
	"Fail:               0   ",
	"Unexpected Pass:    0   ",
	"Timeout:            0   ",
	"# FAIL:  0",
	"# XFAIL: 1",
	"# ERROR: 0",
	"XFAIL: t-known",
	"100% tests passed, 0 tests failed out of 5",
	"5 Tests 0 Failures 0 Ignored",
	"=== RUN   TestFailure",
	"--- PASS: TestTimeoutHandling (0.00s)",
	"ok  \tgithub.com/x/failures\t0.01s",
	"checking for SIGSEGV handling... yes",
	"   12 |   abort(); // Aborted if SIGSEGV",
	"      |   ^~~~~ Segmentation fault",
	"Aborted transaction 12 was retried",
	"not ok 3 - known bug # TODO fix the parser",
	"the request should not fail",
	"error handling is covered",
	"connect timeout = 30s",
	"Timeout: 30s",
	"test result: ok. 35 passed; 0 failed; 0 ignored",
	"running 0 tests",
	"panic handler installed",
	"errors: 0, warnings: 2",
	"SIGTERM sent to the server",
	"===============",
	"",
}

func TestSays(t *testing.T) {
	for _, c := range says {
		h, ok := Match([]byte(c.line))
		if !ok || h.Word != c.word || h.Class != c.class {
			t.Errorf("Match(%q) = %+v, %v; want %q (%s)", c.line, h, ok, c.word, c.class)
		}
	}
}

func TestQuiet(t *testing.T) {
	for _, l := range quiet {
		if h, ok := Match([]byte(l)); ok {
			t.Errorf("Match(%q) = %+v; want none", l, h)
		}
	}
}

// TestEveryWordTested: each word of the table is read from a line of says,
// so that no word is in the table untested.
func TestEveryWordTested(t *testing.T) {
	tested := map[string]bool{}
	for _, c := range says {
		tested[c.word] = true
	}
	var words []string
	for _, p := range phrases {
		words = append(words, p.text)
	}
	for w := range capitals {
		words = append(words, w)
	}
	for w := range counted {
		words = append(words, w)
	}
	for _, w := range words {
		if !tested[w] {
			t.Errorf("the table's word %q has no line in says", w)
		}
	}
}

func FuzzMatch(f *testing.F) {
	for _, c := range says {
		f.Add(c.line)
	}
	for _, l := range quiet {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		h, ok := Match([]byte(line))
		if ok != (h.Class != None) || ok && !strings.Contains(strings.ToLower(line), strings.ToLower(strings.TrimSpace(h.Word))) {
			t.Fatalf("Match(%q) = %+v, %v", line, h, ok)
		}
	})
}

func BenchmarkMatch(b *testing.B) {
	lines := make([][]byte, 0, len(says)+len(quiet))
	n := 0
	for _, l := range quiet {
		lines = append(lines, []byte(l))
		n += len(l) + 1
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, l := range lines {
			Match(l)
		}
	}
}
