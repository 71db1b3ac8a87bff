package logfilter

import (
	"strings"
	"testing"
)

// TestNativeCrashLines: the lines cargo, CTest, make, automake and Unity
// print for crashed and failed tests are classed as such, and none of them
// counts as a compiler error.
func TestNativeCrashLines(t *testing.T) {
	tests := []struct {
		line string
		want Kind
	}{
		{"thread 'tests::overflows' (12538) has overflowed its stack", KindCrash},
		{"thread 'main' has overflowed its stack", KindCrash},
		{"tests::overflows' (17310) has overflowed its stack", KindCrash},
		{"fatal runtime error: stack overflow, aborting", KindCrash},
		{"error: test failed, to rerun pass `--lib`", KindFailure},
		// The binary died while libtest wrote a result: cargo's error (or a
		// panic) follows on the same line, and counts as its own.
		{"test tests::adds ... error: test failed, to rerun pass `--lib`", KindFailure},
		{"test tests::adds ... thread 'tests::b' (7) has overflowed its stack", KindCrash},
		{"test tests::adds ... ok", KindProgress},
		{"test tests::adds ... ", KindProgress},
		{"error: 1 target failed:", KindFailure},
		{"error: 2 targets failed:", KindFailure},
		{"  process didn't exit successfully: `/p/target/debug/deps/crashy-3a07` (signal: 6, SIGABRT: process abort signal)", KindCrash},
		{"  process didn't exit successfully: `/p/target/debug/deps/crashy-3a07` (exit status: 101)", KindFailure},
		{"3/4 Test #3: t_abort ..........................Subprocess aborted***Exception:   0.02 sec", KindCrash},
		{"2/4 Test #2: t_segv ...........................***Exception: SegFault  0.00 sec", KindCrash},
		{"tests/t_unity.c:56:test_compare:FAIL: Expected 1 Was 2", KindFailure},
		{"check.c:3: FAIL compare: expected 1, got 2", KindFailure},
		{"make: *** [Makefile:17: test] Segmentation fault (core dumped)", KindCrash},
		{"make[1]: *** [Makefile:9: run] Aborted (core dumped)", KindCrash},
		{"make: *** [Makefile:17: test] Error 2", KindFailure},
		{"./test-driver: line 112:   580 Segmentation fault      (core dumped) \"$@\" >> \"$log_file\" 2>&1", KindCrash},
		{"FAIL: test_segv", KindFailure},
		{"XPASS: test_x", KindFailure},
		{"PASS: test_ok", KindOther},
		{"# TOTAL: 3", KindSummary},
		{"# FAIL:  2", KindFailure},
		{"# FAIL:  0", KindSummary},
		{"==4242==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000018", KindCrash},
		{"*** stack smashing detected ***: terminated", KindCrash},
		{"*** buffer overflow detected ***: ./a.out terminated", KindCrash},
		{"*** Error in `./a.out': double free or corruption (fasttop): 0x0000000001c2e010 ***", KindCrash},
		{"*** Terminating app due to uncaught exception 'NSInvalidArgumentException', reason: 'x'", KindCrash},
		{"warning: `semver` (lib test) generated 26 warnings (23 duplicates)", KindSummary},
		{"warning: `strsim` (lib) generated 1 warning", KindSummary},
		{"warning: unused variable: `x`", KindWarning},
		{"-- Configuring incomplete, errors occurred!", KindFailure},
		{"-- Performing Test FLAG_SUPPORTED_Werror", KindProgress},
		{"-- Performing Test FLAG_SUPPORTED_Werror - Success", KindProgress},
		{"-- Looking for strerror_r - found", KindProgress},
		{"*** zlib test OK ***", KindSummary},
		{"*** Running 12 tests ***", KindSummary},
	}
	for _, tt := range tests {
		if got := Classify([]byte(tt.line)); got != tt.want {
			t.Errorf("%q: %s, want %s", tt.line, got, tt.want)
		}
	}
	// A cargo test crash is no compiler error.
	log := "running 2 tests\n\nthread 'tests::overflows' (1) has overflowed its stack\nfatal runtime error: stack overflow, aborting\n" +
		"error: test failed, to rerun pass `--lib`\n\nCaused by:\n  process didn't exit successfully: `/x` (signal: 6, SIGABRT: process abort signal)\n"
	var out strings.Builder
	f := New(Minimal, &out)
	f.Write([]byte(log))
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if s := f.Summary(); s.Errors != 0 || s.Crashes != 3 {
		t.Errorf("errors %d crashes %d, want 0 and 3:\n%s", s.Errors, s.Crashes, out.String())
	}
}
