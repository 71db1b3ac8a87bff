package verdict_test

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/txtar"
	"github.com/triage-dev/triage/internal/verdict"
)

// TestPatternsOnLines feeds one line at a time: real runtime messages must
// fire their pattern, and look-alikes (test names, prose, counts) must not.
func TestPatternsOnLines(t *testing.T) {
	tests := []struct {
		line string
		want string // indicator name, "" for none
	}{
		// Go.
		{"panic: runtime error: invalid memory address or nil pointer dereference", "Go panic"},
		{"panic: boom [recovered]", "Go panic"},
		{"fatal error: concurrent map writes", "Go fatal error"},
		{"WARNING: DATA RACE", "Go data race"},
		{"--- FAIL: TestParse (0.00s)", "Go test failure"},
		{"    --- FAIL: TestParse/empty (0.00s)", "Go test failure"},
		{"--- PASS: TestPanicHandling (0.00s)", ""},
		{"=== RUN   TestPanicHandling", ""},
		{"    handler_test.go:12: recovered panic: boom", ""},
		{"ok  \tgithub.com/x/y\t0.01s", ""},
		{"log: don't panic: it's fine", ""},
		// Rust.
		{"thread 'main' panicked at src/main.rs:4:21:", "Rust panic"},
		{"thread 'main' (6968) panicked at rustpanic.rs:4:21:", "Rust panic"},
		{"thread '<unnamed>' panicked at 'explicit panic', src/lib.rs:2:5", "Rust panic"},
		{"thread 'main' has overflowed its stack", "Rust stack overflow"},
		{"tests::deep' (17310) has overflowed its stack", "Rust stack overflow"},
		{"test result: FAILED. 1 passed; 1 failed; 0 ignored", "cargo test failure"},
		{"test result: ok. 3 passed; 0 failed", ""},
		{"error[E0308]: mismatched types", "rustc error"},
		{"  process didn't exit successfully: `/p/target/debug/deps/crashy-3a07` (signal: 6, SIGABRT: process abort signal)", "cargo test binary killed by a signal"},
		{"  process didn't exit successfully: `/p/target/debug/deps/crashy-3a07` (exit status: 101)", ""},
		// make and CTest reporting a test program killed by a signal.
		{"make: *** [Makefile:17: test] Segmentation fault (core dumped)", "make: Segmentation fault"},
		{"make[2]: *** [Makefile:5: run] Aborted (core dumped)", "make: Aborted"},
		{"make: *** [Makefile:17: test] Error 2", "make failure"},
		{"3/4 Test #3: t_abort ..........................Subprocess aborted***Exception:   0.02 sec", "ctest test crashed"},
		{"2/4 Test #2: t_segv ...........................***Exception: SegFault  0.00 sec", "ctest test crashed"},
		{"4/4 Test #4: t_unity ..........................***Failed    0.00 sec", ""},
		{"test tests::it_panicked_at_startup ... ok", ""},
		// Swift.
		{"Fatal error: Unexpectedly found nil while unwrapping an Optional value", "Swift nil unwrap"},
		{"Swift/ContiguousArrayBuffer.swift:600: Fatal error: Index out of range", "Swift index out of range"},
		{"App/Model.swift:12: Fatal error: bad state", "Swift fatal error"},
		{"Precondition failed: : file /Users/x/AppDelegate.swift, line 19", "Swift precondition failure"},
		{"Model.swift:3: Assertion failed: count > 0", "Swift assertion failure"},
		{"Test Case '-[T testKnownIssueWithFalsePrecondition]' passed (0.000 seconds).", ""},
		{"Test Case '-[T testFatalError]' passed (0.001 seconds).", ""},
		// XCTest.
		{"Restarting after unexpected exit, crash, or test timeout in -[ObjCTests testExample]; summary will include totals from previous launches.", "XCTest runner restarted after a crash"},
		{"Test Case '-[XcbeautifyLibTests testRestartingTests]' passed (0.000 seconds).", ""},
		{"Testing failed:\tMyAppTests-Runner (1234) crashed", "XCTest runner crashed"},
		{"Test runner crashed while preparing to run tests", "XCTest runner crashed"},
		{"Test crashed with signal ill before starting test execution.", "XCTest test crashed"},
		{"Test runner never began executing tests after launching.", "XCTest runner never began executing tests"},
		{"Failed to load the test bundle. (Underlying Error: dlopen failed)", "XCTest failed to load test bundle"},
		{"Test operation failure: Lost connection to test manager service.", "XCTest lost connection"},
		{"Connection with the remote side was unexpectedly closed", "XCTest connection closed"},
		{"BSXPCMessage received error for message: Connection interrupted", "XCTest connection interrupted"},
		{"Test Case '-[A testB]' failed (0.163 seconds).", "XCTest test failure"},
		{"** BUILD FAILED **", "xcodebuild build failure"},
		{"** TEST FAILED **", "xcodebuild test failure"},
		{"** BUILD SUCCEEDED **", ""},
		// C, C++, glibc, shells.
		{"terminate called after throwing an instance of 'std::runtime_error'", "uncaught C++ exception"},
		{"libc++abi: terminating due to uncaught exception of type std::runtime_error: boom", "uncaught C++ exception (libc++)"},
		{"a.out: t.c:5: main: Assertion `x == 1' failed.", "C assertion failure"},
		{"Assertion failed: (x == 1), function main, file t.c, line 5.", "C assertion failure (BSD)"},
		{"*** stack smashing detected ***: terminated", "glibc fatal error"},
		{"*** buffer overflow detected ***: terminated", "glibc fatal error"},
		{"*** stack smashing detected ***: ./a.out terminated", "glibc fatal error"},
		{"*** longjmp causes uninitialized stack frame ***: <unknown> terminated", "glibc fatal error"},
		{"*** Error in `./a.out': double free or corruption (fasttop): 0x0000000001c2e010 ***", "glibc fatal error"},
		{"\t\t*** zlib test OK ***", ""},
		{"*** zlib 64-bit test OK ***", ""},
		{"*** Running the test suite ***", ""},
		{"*** 3 tests terminated early ***", ""},
		{"free(): double free detected in tcache 2", "glibc heap corruption"},
		{"malloc(): corrupted top size", "glibc heap corruption"},
		{"double free or corruption (out)", "glibc double free"},
		{"main.c:3:10: fatal error: foo.h: No such file or directory", "compiler error"},
		{"main.c:3:10: error: expected ';' before 'return'", "compiler error"},
		{"collect2: error: ld returned 1 exit status", "linker error"},
		{"make: *** [Makefile:3: all] Error 1", "make failure"},
		{"make[2]: *** [sub/Makefile:9: x.o] Error 1", "make failure"},
		{"50% tests passed, 1 tests failed out of 2", "ctest failure"},
		{"Segmentation fault (core dumped)", "shell: segmentation fault"},
		{"sh: line 1: 4242 Segmentation fault      ./a.out", "shell: segmentation fault"},
		{"bash: line 1: 77 Killed                  ./hog", "shell: killed"},
		{"bash: 17821 Aborted (core dumped)      /tmp/as", "shell: aborted"},
		{"Aborted by the user", ""},
		{"Aborted (core dumped)", "shell: aborted"},
		{"Floating point exception", "shell: floating point exception"},
		{"0 errors, 0 warnings", ""},
		{"Found 0 errors.", ""},
		{"grep -c 'Segmentation fault' crash.log", ""},
		{"TestSegmentationFaultHandler passed", ""},
		{"error: nothing to commit", ""},
		{"** stars are fine **", ""},
		// Sanitizers.
		{"==7597==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000020", "AddressSanitizer"},
		{"==7616==ERROR: LeakSanitizer: detected memory leaks", "LeakSanitizer"},
		{"WARNING: ThreadSanitizer: data race (pid=7613)", "ThreadSanitizer"},
		{"ubsan.c:6:6: runtime error: signed integer overflow: 2147483647 + 1", "UndefinedBehaviorSanitizer"},
		{"SUMMARY: AddressSanitizer: heap-buffer-overflow asan.c:5 in main", "sanitizer summary"},
		{"panic: runtime error: index out of range [3] with length 0", "Go panic"},
		{"see docs: runtime error: handling", ""},
		// JVM and Python.
		{"# A fatal error has been detected by the Java Runtime Environment:", "JVM fatal error"},
		{"# /tmp/hs_err_pid4242.log", "JVM crash log"},
		{`Exception in thread "main" java.lang.IllegalStateException: boom`, "uncaught Java exception"},
		{"Traceback (most recent call last):", "Python traceback"},
		{"Fatal Python error: Segmentation fault", "Python fatal error"},
		// Hostile bytes.
		{"", ""},
		{"\x00\x01\xff\xfe", ""},
		{strings.Repeat("panic", 10000), ""},
		{"panic: " + strings.Repeat("\xff", 5000), "Go panic"},
	}
	for _, tt := range tests {
		name := tt.line
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			s := verdict.NewScanner()
			s.Feed([]byte(tt.line))
			got := s.Indicators()
			if tt.want == "" {
				if len(got) != 0 {
					t.Errorf("false positive: %+v", got)
				}
				return
			}
			if len(got) == 0 || got[0].Name != tt.want {
				t.Errorf("got %+v, want %q first", got, tt.want)
			}
			for _, in := range got {
				if len(in.Line) > verdict.MaxLineKept+len("…") {
					t.Errorf("kept %d bytes of a line", len(in.Line))
				}
			}
		})
	}
}

// TestScannerWrite: lines split across writes, CRLF, and a final line
// without a newline are all seen as whole lines.
func TestScannerWrite(t *testing.T) {
	s := verdict.NewScanner()
	for _, chunk := range []string{"ok line\r\npa", "nic: bo", "om\n\n", "  \n", "goroutine 1 [running]:\nmain.main()\n", "\t/src/x.go:9 +0x1d\nexit status 2"} {
		s.Write([]byte(chunk))
	}
	s.Flush()
	ins := s.Indicators()
	if len(ins) != 1 || ins[0].Name != "Go panic" || ins[0].Line != "panic: boom" || ins[0].LineNo != 2 {
		t.Fatalf("indicators %+v", ins)
	}
	if f := s.Frame(); f == nil || f.Function != "main.main" || f.File != "/src/x.go" || f.Line != 9 {
		t.Errorf("frame %+v", s.Frame())
	}
	if s.Lines() != 8 || s.NonBlank() != 6 || s.LastLine() != "exit status 2" {
		t.Errorf("lines %d nonblank %d last %q", s.Lines(), s.NonBlank(), s.LastLine())
	}
}

// TestScannerBounded: a huge line without newlines and 100,000 repeats
// of an indicator leave the Scanner small.
func TestScannerBounded(t *testing.T) {
	s := verdict.NewScanner()
	chunk := bytes.Repeat([]byte("x"), 1<<16)
	for range 64 { // 4 MiB, one line
		s.Write(chunk)
	}
	s.Write([]byte("\n"))
	line := []byte("--- FAIL: TestX (0.00s)")
	for range 100_000 {
		s.Feed(line)
	}
	ins := s.Indicators()
	if len(ins) != 1 || ins[0].Count != 100_000 || ins[0].LineNo != 2 {
		t.Errorf("indicators %+v", ins)
	}
	if len(s.LastLine()) > verdict.MaxLineKept {
		t.Errorf("last line kept %d bytes", len(s.LastLine()))
	}
}

// BenchmarkScanner measures throughput on typical build output lines, the
// cost every byte of a 1 GB log pays.
func BenchmarkScanner(b *testing.B) {
	var buf bytes.Buffer
	lines := []string{
		"CompileC /Users/dev/Build/Intermediates.noindex/App.build/Debug/App.build/Objects-normal/arm64/main.o main.m normal arm64 objective-c",
		"    cd /Users/dev/src/app && /Applications/Xcode.app/Contents/Developer/Toolchains/XcodeDefault.xctoolchain/usr/bin/clang -x c",
		"Test Case '-[AppTests testExample]' passed (0.001 seconds).",
		"=== RUN   TestParse/empty_input",
		"2024-01-01T00:00:00Z INFO request served path=/api/v1/items status=200 duration=1.2ms",
	}
	for buf.Len() < 4<<20 {
		for _, l := range lines {
			buf.WriteString(l)
			buf.WriteByte('\n')
		}
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := verdict.NewScanner()
		s.Write(data)
	}
}

// TestScannerCrashFrameIsProjectCode: the frame read from a trace is the
// first in the project's own code (crashsite's rule), not the testing
// package that recovers a test's panic, a sanitizer's interceptor or a
// dependency. The traces are real output, cut.
func TestScannerCrashFrameIsProjectCode(t *testing.T) {
	tests := []struct {
		name, out, project, want string
	}{
		{"go test panic", "--- FAIL: TestWrite (0.00s)\n" +
			"panic: assignment to entry in nil map [recovered, repanicked]\n\tpanic: assignment to entry in nil map\n\n" +
			"goroutine 21 [running]:\n" +
			"testing.tRunner.func1.2({0x55a7a0, 0x6cae10})\n\t/usr/local/go/src/testing/testing.go:1974 +0x232\n" +
			"testing.tRunner.func1()\n\t/usr/local/go/src/testing/testing.go:1977 +0x349\n" +
			"panic({0x55a7a0?, 0x6cae10?})\n\t/usr/local/go/src/runtime/panic.go:860 +0x13a\n" +
			"example.com/gp.write(...)\n\t/tmp/gp/main.go:11\n" +
			"example.com/gp.TestWrite(0xc000102a80?)\n\t/tmp/gp/main_test.go:6 +0x2e\n",
			"", "example.com/gp.write /tmp/gp/main.go:11"},
		{"go panic in a dependency called from the project", "panic: bad input\n\ngoroutine 1 [running]:\n" +
			"github.com/dep/parse.Must(...)\n\t/root/go/pkg/mod/github.com/dep/parse@v1.2.0/must.go:12\n" +
			"main.main()\n\t/work/app/main.go:8 +0x1d\nexit status 2\n",
			"/work/app", "main.main /work/app/main.go:8"},
		{"goroutine trace ends at the first blank line", "panic: boom\n\ngoroutine 7 [running]:\n" +
			"runtime.gopanic({0x1, 0x2})\n\t/usr/lib/go/src/runtime/panic.go:100 +0x1\n" +
			"created by main.main in goroutine 1\n\t/work/app/main.go:14 +0x5c\n\n" +
			"goroutine 1 [semacquire]:\nmain.other()\n\t/work/app/other.go:3 +0x1\n",
			"/work/app", "runtime.gopanic /usr/lib/go/src/runtime/panic.go:100"},
		{"asan interceptor", "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000\n" +
			"    #0 0x7f8b in __interceptor_strlen ../../../../src/libsanitizer/sanitizer_common/sanitizer_common_interceptors.inc:387\n" +
			"    #1 0x4011 in count /work/c/count.c:9\n" +
			"    #2 0x4022 in main /work/c/main.c:4\n",
			"/work/c", "count /work/c/count.c:9"},
		{"asan in a const method (gcc 12)", "==11958==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000020\n" +
			"READ of size 4 at 0x602000000020 thread T0\n" +
			"    #0 0x561ab9c5ddbd in ns::klass::as_int(int) const /tmp/qfr/lib.cpp:13\n" +
			"    #1 0x561ab9c5d81f in main /tmp/qfr/lib.cpp:48\n",
			"", "ns::klass::as_int(int) const /tmp/qfr/lib.cpp:13"},
		{"asan in a Rust trait impl", "==13823==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x7c0e7afe0034\n" +
			"    #0 0x55cc94099db7 in <mycrate::A as core::fmt::Debug>::fmt /tmp/qfr/rs/src/main.rs:23:26\n" +
			"    #1 0x55cc940d4f09 in <core::fmt::rt::Argument>::fmt /rustc/e50aa6fba4e6/library/core/src/fmt/rt.rs:152:76\n" +
			"    #9 0x55cf85461661 in mycrate::main /tmp/qfr/rs/src/main.rs:35:9\n",
			"", "<mycrate::A as core::fmt::Debug>::fmt /tmp/qfr/rs/src/main.rs:23"},
		{"tsan in a C++ method", "WARNING: ThreadSanitizer: data race (pid=31578)\n" +
			"  Write of size 4 at 0x56547dfee05c by thread T2:\n" +
			"    #0 ns::counter::bump(int) volatile /src/race.cpp:8:3 (race+0x11dc)\n" +
			"    #1 worker(void*) /src/race.cpp:14 (race+0x1224)\n",
			"", "ns::counter::bump(int) volatile /src/race.cpp:8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := verdict.NewScanner()
			s.Write([]byte(tt.out))
			s.Flush()
			f := s.CrashFrame(tt.project)
			if f == nil {
				t.Fatalf("no frame, want %q", tt.want)
			}
			if got := fmt.Sprintf("%s %s:%d", f.Function, f.File, f.Line); got != tt.want {
				t.Errorf("frame %q, want %q", got, tt.want)
			}
		})
	}
}

// TestScannerCrashFrameOfQualifiedNames: every recorded AddressSanitizer
// report (g++ 12, clang++ 22, rustc nightly; ../crashsite/testdata) is
// reported at the function its SUMMARY line names: the const method,
// template, lambda, anonymous namespace, operator, closure or trait impl
// that overflowed, not its caller.
func TestScannerCrashFrameOfQualifiedNames(t *testing.T) {
	data, err := os.ReadFile("../crashsite/testdata/qualified-frames.txtar")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range txtar.Parse(data).Files {
		if !strings.HasPrefix(f.Name, "asan/") {
			continue
		}
		n++
		t.Run(f.Name, func(t *testing.T) {
			_, summary, _ := strings.Cut(f.Data, "SUMMARY: AddressSanitizer: heap-buffer-overflow ")
			summary, _, _ = strings.Cut(summary, "\n")
			loc, fn, _ := strings.Cut(summary, " in ") // "FILE:LINE[:COLUMN]"
			for _, project := range []string{"", "/src/qfr"} {
				s := verdict.NewScanner()
				s.Write([]byte(f.Data))
				s.Flush()
				got := s.CrashFrame(project)
				if got == nil {
					t.Fatalf("no frame, want %s", summary)
				}
				at := got.File + ":" + strconv.Itoa(got.Line)
				if got.Function != fn || (loc != at && !strings.HasPrefix(loc, at+":")) {
					t.Errorf("project %q: frame %s %s:%d, want %s", project, got.Function, got.File, got.Line, summary)
				}
			}
		})
	}
	if n != 20 {
		t.Errorf("%d reports, want 20", n)
	}
}
