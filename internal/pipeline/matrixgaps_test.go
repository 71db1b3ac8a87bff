package pipeline

import (
	"strings"
	"testing"
)

// A project's own test programs (zlib's make test): a failed check prints
// an error no compiler wrote and the Makefile says the test FAILED. Read
// alone, that is a failed test run, not a failed build.
func TestAnalyzeOwnProgramFailure(t *testing.T) {
	log := "gcc -O3 -g -o example example.o -L. libz.a\n" +
		"hello world\n" +
		"injected error: -3\n" +
		"\t\t*** zlib test FAILED ***\n" +
		"make: *** [Makefile:85: teststatic] Error 1\n"
	res, err := Analyze(strings.NewReader(log), AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Failed || !strings.HasPrefix(res.Line, "FAILED: line 4 of the log says") || !strings.Contains(res.Line, "injected error: -3") {
		t.Errorf("%s: %s", res.Status, res.Line)
	}

	// A compiler's error is still a failed build.
	res, err = Analyze(strings.NewReader("zutil.c:29:5: error: 'x' undeclared (first use in this function)\n*** zlib test FAILED ***\n"), AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Line, "BUILD FAILED") {
		t.Errorf("compiler error: %s", res.Line)
	}
}

// An ASan report in a log no runner reads names where the fault is.
func TestAnalyzeSanitizerSite(t *testing.T) {
	log := "hello world\n" +
		"==25924==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000018 at pc 0x55 bp 0x7f sp 0x7f\n" +
		"WRITE of size 1 at 0x602000000018 thread T0\n" +
		"    #0 0x55d1 in zlibVersion /src/zlib/zutil.c:29\n" +
		"    #1 0x55d2 in main /src/zlib/test/example.c:553\n" +
		"    #2 0x7f01 in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58\n" +
		"\n" +
		"SUMMARY: AddressSanitizer: heap-buffer-overflow /src/zlib/zutil.c:29 in zlibVersion\n" +
		"\t\t*** zlib test FAILED ***\n"
	res, err := Analyze(strings.NewReader(log), AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Crashed || !strings.Contains(res.Line, "AddressSanitizer: heap-buffer-overflow in zlibVersion at zutil.c:29") {
		t.Errorf("%s: %s", res.Status, res.Line)
	}
}

// A CTest run killed in a cmocka test: the stacks triage wrote into the
// log before the kill name the case, the function cmocka's runner called.
func TestAnalyzeHungCaseByRunner(t *testing.T) {
	log := "Test project /src/build\n" +
		"    Start 1: test_crypto\n" +
		"\n--- stacks of pid 26639 (test_crypto) taken by gdb before the kill ---\n" +
		"Thread 1 (Thread 0x7f3ebd17e300 (LWP 26639) \"test_crypto\"):\n" +
		"#0  0x000055dc50dd42d5 in omemo_default_crypto_random_bytes (buf_pp=..., buf_len=..., user_data_p=...) at /src/libomemo/src/libomemo_crypto.c:21\n" +
		"#1  0x000055dc50dd47a3 in test_random_bytes (state=...) at /src/libomemo/test/test_crypto.c:27\n" +
		"#2  0x00007f3ebd4d58f8 in ?? () from /lib/x86_64-linux-gnu/libcmocka.so.0\n" +
		"#3  0x00007f3ebd4d5fdb in _cmocka_run_group_tests () from /lib/x86_64-linux-gnu/libcmocka.so.0\n" +
		"#4  0x000055dc50dd4b1c in main () at /src/libomemo/test/test_crypto.c:99\n" +
		"[Inferior 1 (process 26639) detached]\n"
	res, err := Analyze(strings.NewReader(log), AnalyzeOptions{Format: "ctest"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status == Succeeded || !strings.Contains(res.Line, "test_crypto") || !strings.Contains(res.Line, "while running test_random_bytes (running at libomemo_crypto.c:21") {
		t.Errorf("%s: %s", res.Status, res.Line)
	}
}
