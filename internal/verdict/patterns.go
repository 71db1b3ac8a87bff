package verdict

import (
	"regexp"
	"sync"
)

// severity says what a pattern means for the verdict.
type severity int

const (
	// sevCrash is decisive: the run crashed whatever its exit status.
	sevCrash severity = iota
	// sevError explains a failure but cannot turn a clean exit into one
	// (a Python traceback may be logged and handled; a test can fail and be
	// retried).
	sevError
	// sevSuccess is the output claiming success, e.g. "** BUILD SUCCEEDED **".
	sevSuccess
)

// frameStyle says how to find the crash frame near a pattern's line.
type frameStyle int

const (
	frameNone      frameStyle = iota
	frameGoTrace              // following lines: "pkg.fn(...)" then "\t/path/f.go:N +0x.."
	frameSanStack             // following lines: "#0 0x... in fn /path/f.c:N"
	frameTSanStack            // following lines: "#0 fn /path/f.c:N (bin+0x..)"
	frameInLine               // the line itself carries the location (re groups file, line[, fn])
)

// pattern is one indicator. key is a literal every matching line contains
// (the cheap filter, see matcher); re, when set, must also match.
type pattern struct {
	pack, name string
	typ        CrashType
	sev        severity
	key        string
	re         *regexp.Regexp
	frame      frameStyle
	frameRe    *regexp.Regexp // for frameInLine: named groups file, line, fn
	// withNext appends the next non-blank line to the indicator's line,
	// for runtimes that print the message under the header.
	withNext bool
}

var re = regexp.MustCompile

// shellReport builds the pattern for a shell's report of a child killed by
// a signal: dash prints the message alone on its line ("Segmentation fault"),
// bash prefixes it ("bash: line 1: 4242 Segmentation fault      ./a.out",
// or "bash: 4242 Aborted (core dumped)  ./a.out" when interactive).
func shellReport(name, word string, typ CrashType) pattern {
	w := regexp.QuoteMeta(word) + `( \(core dumped\))?`
	return pattern{pack: "shell", name: name, typ: typ, sev: sevCrash, key: word,
		re: re(`^(` + w + `\s*|\S+: (line \d+: +)?\d+ +` + w + `(\s.*)?)$`)}
}

// makeSignal builds the pattern for make's report of a recipe's program
// killed by a signal: "make: *** [Makefile:17: test] Segmentation fault
// (core dumped)".
func makeSignal(word string, typ CrashType) pattern {
	return pattern{pack: "c", name: "make: " + word, typ: typ, sev: sevCrash, key: "] " + word,
		re: re(`^g?make(\[\d+\])?: \*\*\* .*\] ` + regexp.QuoteMeta(word))}
}

// patterns are the indicator packs. Order matters only for ties: when two
// patterns fire on the same line, the earlier one names the crash, so
// specific patterns precede generic ones.
// patterns are compiled on first use (about 75 regular expressions), not at
// start-up: a triage that never scans output pays nothing for them.
var patterns = sync.OnceValue(func() []pattern {
	return []pattern{
		// Go runtime.
		{pack: "go", name: "Go panic", typ: CrashPanic, sev: sevCrash, key: "panic: ", re: re(`^panic: `), frame: frameGoTrace},
		{pack: "go", name: "Go fatal error", typ: CrashFatalError, sev: sevCrash, key: "fatal error: ", re: re(`^fatal error: `), frame: frameGoTrace},
		{pack: "go", name: "Go data race", typ: CrashSanitizer, sev: sevCrash, key: "WARNING: DATA RACE", re: re(`^WARNING: DATA RACE`), frame: frameGoTrace, withNext: true},
		{pack: "go", name: "Go test failure", typ: CrashTestFailure, sev: sevError, key: "--- FAIL: ", re: re(`^\s*--- FAIL: `)},

		// Rust.
		// "thread 'main' panicked at src/main.rs:4:21:" (Rust >= 1.73, and
		// "thread 'main' (6968) panicked at" since 1.88), or before 1.73
		// "thread 'main' panicked at 'msg', src/main.rs:4:21".
		{pack: "rust", name: "Rust panic", typ: CrashPanic, sev: sevCrash, key: " panicked at ", re: re(`^thread '[^']*'( \(\d+\))? panicked at `), frame: frameInLine, withNext: true,
			frameRe: re(`panicked at (?:'.*', )?(?P<file>[^\s:']+):(?P<line>\d+)`)},
		{pack: "rust", name: "Rust stack overflow", typ: CrashFatalError, sev: sevCrash, key: " has overflowed its stack", re: re(`'( \(\d+\))? has overflowed its stack$`)},
		{pack: "rust", name: "Rust fatal runtime error", typ: CrashFatalError, sev: sevCrash, key: "fatal runtime error: ", re: re(`^fatal runtime error: `)},
		{pack: "rust", name: "cargo test binary killed by a signal", typ: CrashTestRunnerCrash, sev: sevCrash, key: "process didn't exit successfully", re: re(`process didn't exit successfully: .*\(signal: \d+, SIG`)},
		{pack: "rust", name: "cargo test failure", typ: CrashTestFailure, sev: sevError, key: "test result: FAILED"},
		{pack: "rust", name: "rustc error", typ: CrashBuildFailure, sev: sevError, key: "error[E", re: re(`^error\[E\d+\]: `)},
		{pack: "rust", name: "cargo build failure", typ: CrashBuildFailure, sev: sevError, key: "error: could not compile"},

		// Swift runtime. Swift prints "F.swift:12: Fatal error: msg" (5.x+) or
		// "Fatal error: msg: file F.swift, line 12" (older).
		{pack: "swift", name: "Swift nil unwrap", typ: CrashFatalError, sev: sevCrash, key: "Unexpectedly found nil while"},
		{pack: "swift", name: "Swift index out of range", typ: CrashFatalError, sev: sevCrash, key: "Fatal error: Index out of range"},
		{pack: "swift", name: "Swift fatal error", typ: CrashFatalError, sev: sevCrash, key: "Fatal error", re: re(`(^|[\s:\]])Fatal error(: |:?$)`), frame: frameInLine, frameRe: swiftLocation()},
		{pack: "swift", name: "Swift precondition failure", typ: CrashFatalError, sev: sevCrash, key: "Precondition failed", re: re(`(^|[\s:\]])Precondition failed(:|$)`), frame: frameInLine, frameRe: swiftLocation()},
		{pack: "swift", name: "Swift assertion failure", typ: CrashFatalError, sev: sevCrash, key: "Assertion failed", re: re(`(^|[\s:\]])Assertion failed(: [^(]|:?$)`), frame: frameInLine, frameRe: swiftLocation()},

		// XCTest and xcodebuild. The wording is Xcode's, from real logs.
		{pack: "xctest", name: "XCTest runner restarted after a crash", typ: CrashTestRunnerCrash, sev: sevCrash, key: "Restarting after unexpected exit, crash, or test timeout"},
		{pack: "xctest", name: "XCTest early unexpected exit", typ: CrashTestRunnerCrash, sev: sevCrash, key: "Early unexpected exit, operation never finished bootstrapping"},
		{pack: "xctest", name: "XCTest runner exited before starting", typ: CrashTestRunnerCrash, sev: sevCrash, key: "exited before starting test execution"},
		{pack: "xctest", name: "XCTest runner never began executing tests", typ: CrashTestRunnerCrash, sev: sevCrash, key: "never began executing tests"},
		{pack: "simulator", name: "simulator crashed", typ: CrashSimulatorCrash, sev: sevCrash, key: "may have crashed or quit responding"},
		{pack: "xctest", name: "XCTest test crashed", typ: CrashTestRunnerCrash, sev: sevCrash, key: "crashed with signal"},
		{pack: "xctest", name: "XCTest runner crashed", typ: CrashTestRunnerCrash, sev: sevCrash, key: "crashed", re: re(`(Test runner|test runner|Test process|test process|Testing failed).*crashed`)},
		{pack: "xctest", name: "XCTest failed to load test bundle", typ: CrashTestRunnerCrash, sev: sevCrash, key: "Failed to load the test bundle"},
		{pack: "xctest", name: "XCTest connection interrupted", typ: CrashTestRunnerCrash, sev: sevCrash, key: "onnection interrupted", re: re(`[Cc]onnection interrupted`)},
		{pack: "xctest", name: "XCTest lost connection", typ: CrashTestRunnerCrash, sev: sevCrash, key: "Lost connection to test"},
		{pack: "xctest", name: "XCTest connection closed", typ: CrashTestRunnerCrash, sev: sevCrash, key: "Connection with the remote side was unexpectedly closed"},
		{pack: "xctest", name: "XCTest runner failed to initialize", typ: CrashTestRunnerCrash, sev: sevError, key: "Test runner failed to initialize"},
		{pack: "xctest", name: "XCTest runner failed to launch", typ: CrashTestRunnerCrash, sev: sevError, key: "Failed to install or launch the test runner"},
		{pack: "xctest", name: "XCTest failed to background runner", typ: CrashTestRunnerCrash, sev: sevError, key: "Failed to background test runner"},
		{pack: "xctest", name: "XCTest test failure", typ: CrashTestFailure, sev: sevError, key: "' failed (", re: re(`^Test Case '.*' failed \(`)},
		{pack: "xctest", name: "XCTest assertion failure", typ: CrashTestFailure, sev: sevError, key: ": error: ", re: re(`^\S+:\d+: error: (-\[|\S+ : )`)},
		{pack: "xcodebuild", name: "xcodebuild test failure", typ: CrashTestFailure, sev: sevError, key: "** TEST FAILED **"},
		{pack: "xcodebuild", name: "xcodebuild test execution failure", typ: CrashTestFailure, sev: sevError, key: "** TEST EXECUTE FAILED **"},
		{pack: "xcodebuild", name: "xcodebuild build failure", typ: CrashBuildFailure, sev: sevError, key: " FAILED **", re: re(`^\*\* (BUILD|TEST BUILD|ARCHIVE|CLEAN|ANALYZE) FAILED \*\*`)},
		{pack: "xcodebuild", name: "xcodebuild success", typ: CrashNone, sev: sevSuccess, key: " SUCCEEDED **", re: re(`^\*\* [A-Z ]+ SUCCEEDED \*\*`)},
		{pack: "simulator", name: "simulator failed to boot", typ: CrashSimulatorCrash, sev: sevError, key: "seconds for simulator to boot"},

		// C and C++ runtimes.
		{pack: "c", name: "uncaught C++ exception", typ: CrashAbort, sev: sevCrash, key: "terminate called after throwing"},
		{pack: "c", name: "C++ terminate", typ: CrashAbort, sev: sevCrash, key: "terminate called without an active exception"},
		{pack: "c", name: "uncaught C++ exception (libc++)", typ: CrashAbort, sev: sevCrash, key: "libc++abi: terminating"},
		{pack: "c", name: "C assertion failure", typ: CrashAbort, sev: sevCrash, key: ": Assertion `", re: re(`: Assertion .+ failed\.\s*$`), frame: frameInLine,
			frameRe: re(`(?P<file>[^\s:]+):(?P<line>\d+): (?P<fn>[^:]+): Assertion`)},
		{pack: "c", name: "C assertion failure (BSD)", typ: CrashAbort, sev: sevCrash, key: "Assertion failed: (", frame: frameInLine,
			frameRe: re(`function (?P<fn>\S+), file (?P<file>\S+), line (?P<line>\d+)`)},
		// glibc's fatal messages: "*** stack smashing detected ***: terminated"
		// (and, before 2.34, "...***: ./prog terminated"), and malloc's
		// "*** Error in `./prog': double free or corruption ...: 0x... ***".
		// A test's own banner between stars ("*** zlib test OK ***") is not one.
		{pack: "c", name: "glibc fatal error", typ: CrashAbort, sev: sevCrash, key: "*** ", re: re(`^\*\*\* (?:.+ \*\*\*: (?:.* )?terminated\s*$|Error in .+ \*\*\*)`)},
		{pack: "c", name: "glibc heap corruption", typ: CrashAbort, sev: sevCrash, key: "(): ",
			re: re(`^(free|malloc|realloc|calloc|munmap_chunk|malloc_consolidate|_int_free|_int_malloc|_int_realloc|tcache_thread_shutdown)\(\): `)},
		{pack: "c", name: "glibc double free", typ: CrashAbort, sev: sevCrash, key: "double free or corruption"},
		{pack: "c", name: "compiler error", typ: CrashBuildFailure, sev: sevError, key: "error: ", re: re(`^\S+:\d+:\d+: (fatal )?error: `)},
		{pack: "c", name: "linker error", typ: CrashBuildFailure, sev: sevError, key: "ld returned"},
		{pack: "c", name: "linker error", typ: CrashBuildFailure, sev: sevError, key: "linker command failed"},
		makeSignal("Segmentation fault", CrashSegmentationFault),
		makeSignal("Aborted", CrashAbort),
		makeSignal("Bus error", CrashBusError),
		makeSignal("Illegal instruction", CrashIllegalInstruction),
		makeSignal("Floating point exception", CrashFPException),
		{pack: "c", name: "make failure", typ: CrashBuildFailure, sev: sevError, key: ": *** ", re: re(`^g?make(\[\d+\])?: \*\*\* `)},
		{pack: "c", name: "ctest test crashed", typ: CrashTestRunnerCrash, sev: sevCrash, key: "***Exception:", re: re(`^\s*\d+/\d+ Test\s+#\d+: .*\*\*\*Exception:`)},
		{pack: "c", name: "ctest failure", typ: CrashTestFailure, sev: sevError, key: " tests failed out of "},

		// Sanitizers.
		{pack: "sanitizer", name: "AddressSanitizer", typ: CrashSanitizer, sev: sevCrash, key: "ERROR: AddressSanitizer", re: re(`^(==\d+==)?ERROR: AddressSanitizer`), frame: frameSanStack},
		{pack: "sanitizer", name: "HWAddressSanitizer", typ: CrashSanitizer, sev: sevCrash, key: "ERROR: HWAddressSanitizer", frame: frameSanStack},
		{pack: "sanitizer", name: "LeakSanitizer", typ: CrashSanitizer, sev: sevCrash, key: "ERROR: LeakSanitizer", re: re(`^(==\d+==)?ERROR: LeakSanitizer`), frame: frameSanStack},
		{pack: "sanitizer", name: "MemorySanitizer", typ: CrashSanitizer, sev: sevCrash, key: "WARNING: MemorySanitizer", re: re(`^(==\d+==)?WARNING: MemorySanitizer`), frame: frameSanStack},
		{pack: "sanitizer", name: "ThreadSanitizer", typ: CrashSanitizer, sev: sevCrash, key: "WARNING: ThreadSanitizer", re: re(`^(==\d+==)?WARNING: ThreadSanitizer`), frame: frameTSanStack},
		{pack: "sanitizer", name: "UndefinedBehaviorSanitizer", typ: CrashSanitizer, sev: sevCrash, key: ": runtime error: ", re: re(`^\S+:\d+:\d+: runtime error: `), frame: frameInLine,
			frameRe: re(`^(?P<file>\S+?):(?P<line>\d+):\d+: runtime error`)},
		{pack: "sanitizer", name: "sanitizer summary", typ: CrashSanitizer, sev: sevCrash, key: "SUMMARY: ", re: re(`^SUMMARY: \w+Sanitizer: `)},

		// JVM.
		{pack: "jvm", name: "JVM fatal error", typ: CrashFatalError, sev: sevCrash, key: "A fatal error has been detected by the Java Runtime Environment", withNext: true},
		{pack: "jvm", name: "JVM crash log", typ: CrashFatalError, sev: sevCrash, key: "hs_err_pid", re: re(`^#\s+\S*hs_err_pid\d+\.log`)},
		{pack: "jvm", name: "uncaught Java exception", typ: CrashPanic, sev: sevError, key: `Exception in thread "`, re: re(`^Exception in thread "`)},

		// Python.
		{pack: "python", name: "Python fatal error", typ: CrashFatalError, sev: sevCrash, key: "Fatal Python error: ", re: re(`^Fatal Python error: `)},
		{pack: "python", name: "Python traceback", typ: CrashPanic, sev: sevError, key: "Traceback (most recent call last):", re: re(`^Traceback \(most recent call last\):`)},

		// What a shell prints when its child dies of a signal.
		shellReport("shell: segmentation fault", "Segmentation fault", CrashSegmentationFault),
		shellReport("shell: bus error", "Bus error", CrashBusError),
		shellReport("shell: illegal instruction", "Illegal instruction", CrashIllegalInstruction),
		shellReport("shell: floating point exception", "Floating point exception", CrashFPException),
		shellReport("shell: aborted", "Aborted", CrashAbort),
		shellReport("shell: trap", "Trace/breakpoint trap", CrashIllegalInstruction),
		shellReport("shell: killed", "Killed", CrashKilled),
	}
})

var swiftLocation = sync.OnceValue(func() *regexp.Regexp { return re(`(?P<file>[^\s:]+\.swift)(?::(?P<line>\d+)|, line (?P<line2>\d+))`) })

// jvmCrashLog extracts the hs_err path from the "JVM crash log" line.
var jvmCrashLog = sync.OnceValue(func() *regexp.Regexp { return re(`(\S*hs_err_pid\d+\.log)`) })
