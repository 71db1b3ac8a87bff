package logfilter

import "bytes"

// classifyPrefix recognises lines by how they begin: the rule for the
// line's first byte, if there is one.
func classifyPrefix(b []byte, indent int) (class, bool) {
	if rule := prefixRules[b[0]]; rule != nil {
		return rule(b, indent)
	}
	return class{}, false
}

// prefixRules are classifyPrefix's rules by first byte; indent is how far
// the line was indented.
var prefixRules = func() (t [256]func(b []byte, indent int) (class, bool)) {
	t = [256]func([]byte, int) (class, bool){
		'*':  onStar,
		'-':  onDash,
		'#':  onHash,
		'=':  onEquals,
		'F':  onUpperF,
		'f':  onLowerF,
		'e':  onLowerE,
		'E':  onUpperE,
		'w':  onLowerW,
		'W':  onUpperW,
		'n':  onLowerN,
		'p':  onLowerP,
		't':  onLowerT,
		'T':  onUpperT,
		'U':  onUpperU,
		'u':  onLowerU,
		'l':  onLowerL,
		'c':  onLowerC,
		'C':  onUpperC,
		'm':  onLowerM,
		'g':  onLowerG,
		'd':  onLowerD,
		'S':  onUpperS,
		'A':  onUpperA,
		'B':  onUpperB,
		'I':  onUpperI,
		'K':  onUpperK,
		'R':  onUpperR,
		'P':  onUpperP,
		'o':  onLowerO,
		'[':  onBracket,
		'(':  onParen,
		0xE2: onGlyph,
		0xF4: onGlyph,
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = onDigit
	}
	return t
}()

// The rules, named by the first byte they take.

func onDigit(b []byte, _ int) (class, bool) { return classifyDigit(b) }

func onStar(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "** ") {
		if bytes.Contains(b, litFailed) {
			return with(clsFailure, "xcodebuild"), true
		}
		return with(clsSummary, "xcodebuild"), true
	}
	if hasPrefix(b, "*** ") {
		if isRuntimeStarLine(b) {
			return clsCrash, true
		}
		// A banner of the tests' own ("*** zlib test OK ***") or a tool's
		// word after a failure (xcodebuild's "*** If you believe this error
		// represents a bug..."): kept at every level, counted as nothing.
		return clsSummary, true
	}
	return class{}, false
}

// isRuntimeStarLine reports a runtime's fatal line between stars: glibc's
// ("*** stack smashing detected ***: terminated", and before 2.34 "***:
// ./prog terminated"; malloc's "*** Error in `./prog': ..."), and
// Foundation's uncaught exception and assertion. A test's own banner
// ("*** zlib test OK ***") is none.
func isRuntimeStarLine(b []byte) bool {
	if i := bytes.Index(b, litStarsColon); i > 0 && bytes.Contains(b[i:], litTerminated) {
		return true
	}
	for _, p := range starLinePrefixes {
		if hasPrefix(b, p) {
			return true
		}
	}
	return false
}

var (
	litErrorsOccurred = []byte("errors occurred")
	litGenerated      = []byte(") generated ")
	litStarsColon     = []byte(" ***: ")
	litTerminated     = []byte("terminated")
	starLinePrefixes  = []string{"*** Error in `", "*** Terminating app due to uncaught exception", "*** Assertion failure in ", "*** First throw call stack"}
)

func onDash(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "--- FAIL") {
		return with(clsFailure, "go"), true
	}
	if hasPrefix(b, "--- PASS") || hasPrefix(b, "--- SKIP") {
		return with(clsProg, "go"), true
	}
	if hasPrefix(b, "-- ") {
		// "-- Configuring incomplete, errors occurred!"; not a check's
		// name that holds the word ("-- Performing Test FLAG_SUPPORTED_Werror",
		// "-- Looking for strerror_r").
		if hasPrefix(b, "-- Configuring incomplete") || bytes.Contains(b, litErrorsOccurred) {
			return with(class{kind: KindFailure}, "cmake"), true
		}
		return with(clsProg, "cmake"), true
	}
	if hasPrefix(b, "---- ") && hasSuffix(b, " ----") {
		return with(class{kind: KindOther, ctx: ctxAny}, "cargo"), true // "---- tests::x stdout ----"
	}
	return class{}, false
}

func onHash(b []byte, _ int) (class, bool) {
	return classifyAutomakeTally(b)
}

func onEquals(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "=== ") {
		return clsProg, true
	}
	if hasPrefix(b, "==") && len(b) > 2 && isDigit(b[2]) && bytes.Contains(b, litSanitizer) {
		return with(clsCrash, "sanitizer"), true // "==123==ERROR: AddressSanitizer: heap-use-after-free"
	}
	return class{}, false
}

func onUpperF(b []byte, _ int) (class, bool) {
	switch {
	case string(b) == "FAIL" || hasPrefix(b, "FAIL\t") || hasPrefix(b, "FAIL "):
		return with(class{kind: KindFailure}, "go"), true
	case hasPrefix(b, "Fatal error"):
		return with(clsCrash, "swift"), true
	case hasPrefix(b, "Failing tests:"):
		return class{kind: KindFailure, block: KindFailure, tool: "xcodebuild"}, true
	case hasPrefix(b, "FAILED: "):
		return with(class{kind: KindFailure}, "ninja"), true
	case hasPrefix(b, "Finished "):
		return with(clsSummary, "cargo"), true
	case hasPrefix(b, "Found ") && hasSuffix(b, " data race(s)"):
		return with(class{kind: KindFailure}, "go"), true // the race detector's tally at exit
	}
	return class{}, false
}

func onLowerF(b []byte, _ int) (class, bool) {
	switch {
	case hasPrefix(b, "fatal error:"):
		return clsCrash, true // Go runtime; gcc's carry a location
	case hasPrefix(b, "fatal: "):
		return clsError, true
	case hasPrefix(b, "free(): "):
		return with(clsCrash, "glibc"), true
	case string(b) == "failures:":
		return class{kind: KindFailure, block: KindFailure, tool: "cargo"}, true
	case hasPrefix(b, "fatal runtime error:"):
		return with(clsCrash, "rust"), true
	}
	return class{}, false
}

func onLowerE(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "error: test failed") || (hasPrefix(b, "error: ") && hasSuffix(b, " failed:") && bytes.Contains(b, []byte(" target"))) {
		// cargo's "error: test failed, to rerun pass `--lib`" and
		// "error: 2 targets failed:": a test binary failed, no compiler error.
		return class{kind: KindFailure, block: KindFailure, tool: "cargo"}, true
	}
	if hasPrefix(b, "error:") || hasPrefix(b, "error[") {
		if bytes.Contains(b, litLinker) && (bytes.Contains(b, []byte("link command failed")) || bytes.Contains(b, []byte("linking with"))) {
			return with(clsError, "ld").asLinker(), true
		}
		return clsError, true
	}
	return class{}, false
}

func onUpperE(b []byte, _ int) (class, bool) {
	switch {
	case hasPrefix(b, "Error:") || hasPrefix(b, "ERROR:") || hasPrefix(b, "Error Domain=") || hasPrefix(b, "Error "):
		c := clsError
		if bytes.Contains(b, litUnexpectedExt) || bytes.Contains(b, litCrashed) {
			c = clsCrash
		}
		return c, true
	case hasPrefix(b, "Errors while running CTest"):
		return with(class{kind: KindFailure}, "ctest"), true
	case hasPrefix(b, "Executed ") && len(b) > 9 && isDigit(b[9]):
		return with(clsSummary, "xctest"), true
	}
	return class{}, false
}

func onLowerW(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "warning: `") && bytes.Contains(b, litGenerated) {
		// cargo's count of a crate's warnings: "warning: `semver` (lib
		// test) generated 26 warnings (23 duplicates)", no warning itself.
		return with(clsSummary, "cargo"), true
	}
	if hasPrefix(b, "warning:") || hasPrefix(b, "warning[") {
		return clsWarning, true
	}
	return class{}, false
}

func onUpperW(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "WARNING: ") && bytes.Contains(b, litSanitizer) {
		return with(clsCrash, "sanitizer"), true
	}
	if string(b) == "WARNING: DATA RACE" {
		return with(clsCrash, "go"), true // the race detector's report, ThreadSanitizer's in Go
	}
	if hasPrefix(b, "Warning:") || hasPrefix(b, "WARNING:") {
		return clsWarning, true
	}
	return class{}, false
}

func onLowerN(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "note:") {
		return clsNote, true
	}
	if hasPrefix(b, "ninja: build stopped") {
		return with(class{kind: KindFailure}, "ninja"), true
	}
	return class{}, false
}

func onLowerP(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "panic:") {
		return with(clsCrash, "go"), true
	}
	if c, ok := isProcessFailure(b); ok {
		return c, true
	}
	return class{}, false
}

func onLowerT(b []byte, _ int) (class, bool) {
	return classifyLowerT(b)
}

func onUpperT(b []byte, indent int) (class, bool) {
	return classifyUpperT(b, indent)
}

func onUpperU(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "Use \"--rerun-failed") {
		return with(clsSummary, "ctest"), true
	}
	if hasPrefix(b, "Undefined symbols for architecture") {
		return class{kind: KindLinker, block: KindLinker, tool: "ld"}, true
	}
	if hasPrefix(b, "UndefinedBehaviorSanitizer") {
		return with(clsCrash, "sanitizer"), true
	}
	return class{}, false
}

func onLowerU(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "undefined reference to") {
		return with(class{kind: KindLinker, ctx: ctxIndented}, "ld"), true
	}
	return class{}, false
}

func onLowerL(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "ld: ") || hasPrefix(b, "ld.lld: ") || hasPrefix(b, "ld64.lld: ") {
		if bytes.Contains(b, litSymbol) || bytes.Contains(b, litNotFound) || bytes.Contains(b, litError) || bytes.Contains(b, litUndefined) {
			return class{kind: KindLinker, ctx: ctxIndented, tool: "ld"}, true
		}
		if bytes.Contains(b, []byte("warning")) {
			return with(clsWarning, "ld"), true
		}
	}
	if hasPrefix(b, "libc++abi") && bytes.Contains(b, litTerminat) {
		return with(clsCrash, "c++"), true
	}
	return class{}, false
}

func onLowerC(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "collect2: ") {
		return class{kind: KindLinker, tool: "ld"}, true
	}
	if hasPrefix(b, "clang: error:") || hasPrefix(b, "clang++: error:") {
		if bytes.Contains(b, []byte("linker command failed")) {
			return class{kind: KindLinker, tool: "ld"}, true
		}
		return with(clsError, "clang"), true
	}
	return class{}, false
}

func onUpperC(b []byte, _ int) (class, bool) {
	switch {
	case hasPrefix(b, "CMake Error"):
		return with(clsError, "cmake"), true
	case hasPrefix(b, "CMake Warning"), hasPrefix(b, "CMake Deprecation Warning"):
		return with(clsWarning, "cmake"), true
	case hasPrefix(b, "Compiling ") || hasPrefix(b, "CompileC ") || hasPrefix(b, "CompileSwift"):
		return clsProg, true
	}
	return class{}, false
}

func onLowerM(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "make") && isMakeFailure(b[4:]) {
		return makeFailure(b), true
	}
	if hasPrefix(b, "malloc(): ") || hasPrefix(b, "munmap_chunk(): ") {
		return with(clsCrash, "glibc"), true
	}
	return class{}, false
}

func onLowerG(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "gmake") && isMakeFailure(b[5:]) {
		return makeFailure(b), true
	}
	if hasPrefix(b, "goroutine ") {
		return class{kind: KindOther, tool: "go"}, true
	}
	return class{}, false
}

func onLowerD(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "double free or corruption") {
		return with(clsCrash, "glibc"), true
	}
	return class{}, false
}

func onUpperS(b []byte, _ int) (class, bool) {
	switch {
	case hasPrefix(b, "Segmentation fault"), hasPrefix(b, "SIGSEGV"), hasPrefix(b, "SIGABRT"), hasPrefix(b, "SIGBUS"), hasPrefix(b, "SIGILL"), hasPrefix(b, "SIGFPE"):
		return clsCrash, true
	case hasPrefix(b, "SUMMARY: ") && bytes.Contains(b, litSanitizer):
		return class{kind: KindCrash, tool: "sanitizer"}, true // the shadow-byte dump after it is noise
	}
	return class{}, false
}

func onUpperA(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "Aborted") || hasPrefix(b, "Abort trap") || hasPrefix(b, "Assertion failed") || hasPrefix(b, "AddressSanitizer") {
		return clsCrash, true
	}
	return class{}, false
}

func onUpperB(b []byte, _ int) (class, bool) {
	switch {
	case hasPrefix(b, "Bus error"):
		return clsCrash, true
	case hasPrefix(b, "Build complete!"), hasPrefix(b, "BUILD SUCCESSFUL"):
		return clsSummary, true
	case hasPrefix(b, "BUILD FAILED"):
		return class{kind: KindFailure}, true
	}
	return class{}, false
}

func onUpperI(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "Illegal instruction") {
		return clsCrash, true
	}
	return class{}, false
}

func onUpperK(b []byte, _ int) (class, bool) {
	if string(b) == "Killed" || hasPrefix(b, "Killed: 9") {
		return clsCrash, true
	}
	return class{}, false
}

func onUpperR(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "Restarting after unexpected exit") {
		return with(clsCrash, "xctest"), true
	}
	return class{}, false
}

func onUpperP(b []byte, _ int) (class, bool) {
	if string(b) == "PASS" {
		return with(clsSummary, "go"), true
	}
	if hasPrefix(b, "Precondition failed") {
		return with(clsCrash, "swift"), true
	}
	return class{}, false
}

func onLowerO(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "ok  ") || hasPrefix(b, "ok \t") {
		return with(clsSummary, "go"), true
	}
	return class{}, false
}

func onBracket(b []byte, _ int) (class, bool) {
	if hasPrefix(b, "[signal ") {
		return with(clsCrash, "go"), true
	}
	return class{}, false
}

func onParen(b []byte, _ int) (class, bool) {
	if hasSuffix(b, " failures)") || hasSuffix(b, " failure)") {
		return with(class{kind: KindFailure}, "xcodebuild"), true // closes "The following build commands failed:"
	}
	return class{}, false
}

func onGlyph(b []byte, _ int) (class, bool) {
	return classifyGlyph(b)
}
