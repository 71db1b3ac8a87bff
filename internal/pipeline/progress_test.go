package pipeline

import "testing"

// TestCounterMeson: meson test's result lines count, names with spaces
// included, and the failed ones its summary lists again do not count
// twice; ninja's "[1/8]" lines and a file path are not results.
func TestCounterMeson(t *testing.T) {
	in := "[1/8] Compiling C object ab.p/ab.c.o\n" +
		"src/a.c:3:1: warning: unused\n" +
		" 1/12 ok               OK              0.02s\n" +
		" 2/12 seg              FAIL            0.02s   killed by signal 11 SIGSEGV\n" +
		">>> MALLOC_PERTURB_=62 /tmp/mx/b1/seg\n" +
		" 3/12 two words        OK              0.10s\n" +
		" 4/12 hang             TIMEOUT         2.03s   killed by signal 15 SIGTERM\n" +
		" 5/12 skipped          SKIP            0.00s   exit status 77\n" +
		" 6/12 xf               EXPECTEDFAIL    0.01s   exit status 1\n" +
		" 7/12 m:suite / name   UNEXPECTEDPASS  0.01s\n" +
		"\nSummary of Failures:\n\n" +
		" 2/12 seg              FAIL            0.02s   killed by signal 11 SIGSEGV\n" +
		" 4/12 hang             TIMEOUT         2.03s   killed by signal 15 SIGTERM\n" +
		"\nOk:                 3   \nFail:               1   \n"
	c := newCounter()
	for i := range len(in) {
		c.Write([]byte{in[i]})
	}
	if p, f := c.passed.Load(), c.failed.Load(); p != 3 || f != 3 {
		t.Errorf("passed %d failed %d, want 3 and 3", p, f)
	}
}
