package logfilter

import "bytes"

// ctxMode says which following lines belong to a diagnostic as its context.
type ctxMode uint8

const (
	ctxNone     ctxMode = iota
	ctxIndented         // indented lines, gutters, carets, notes (gcc, clang, swiftc, rustc, cmake)
	ctxAny              // any line, up to a cap (panics, sanitizer reports, uncaught exceptions)
)

// class is the verdict on one line.
type class struct {
	kind  Kind
	tool  string  // who printed it, when known; constant strings only
	ctx   ctxMode // context that follows a line of this class
	block Kind    // non-zero: the line heads a list whose indented items are must-keep of this kind
	noise bool    // never kept, even in Verbose
}

// classify looks at one line (ANSI colour removed, no trailing newline).
// It is called for every line of the log, so it only does byte checks; the
// common case of an uninteresting line costs a prefix switch, a walk over the
// line's colons and two literal searches.
func classify(line []byte) class {
	body, indent := trimIndent(line)
	if len(body) == 0 {
		return class{}
	}
	if indent > 0 && isEchoedCommand(body) {
		return class{noise: true}
	}
	if c, ok := classifyPrefix(body, indent); ok {
		return c
	}
	// An NSLog prefix with nothing after it leaves the line as it is.
	if msg := stripNSLogPrefix(body); len(msg) > 0 {
		if hasPrefix(msg, "subsystem: com.apple.") {
			return class{noise: true}
		}
		if c, ok := classifyPrefix(msg, 0); ok {
			return c
		}
		body = msg
	}
	if c, ok := classifyColons(body, indent); ok {
		return c
	}
	return classifyMidline(body)
}

func trimIndent(line []byte) ([]byte, int) {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return line[i:], i
}

// isEchoedCommand reports the indented command lines xcodebuild and make echo
// under each build step. They are the bulk of a verbose build log.
func isEchoedCommand(body []byte) bool {
	switch body[0] {
	case '/':
		// An echoed invocation, not a diagnostic: "/usr/bin/clang -x c ...".
		// A stack frame ("/src/x.go:12 +0x1d") has a colon in its first word.
		sp := bytes.IndexByte(body[:min(len(body), 300)], ' ')
		return sp > 0 && bytes.IndexByte(body[:sp], ':') < 0 && !bytes.Contains(body, litColonSpace)
	case 'c':
		return hasPrefix(body, "cd /")
	case 'e':
		return hasPrefix(body, "export ")
	case 's':
		return hasPrefix(body, "setenv ")
	case 'b':
		return hasPrefix(body, "builtin-")
	case 'w':
		return hasPrefix(body, "write-file ")
	}
	return false
}

var (
	litColonSpace    = []byte(": ")
	litCrashed       = []byte("crashed")
	litUnexpectedExt = []byte("unexpected exit")
	litPanickedAt    = []byte("panicked at")
	litFailed        = []byte("FAILED")
	litFailedLower   = []byte("failed")
	litSymbol        = []byte("symbol")
	litNotFound      = []byte("not found")
	litError         = []byte("error")
	litUndefined     = []byte("undefined")
	litLinker        = []byte("link")
	litTerminat      = []byte("terminat")
	litSanitizer     = []byte("Sanitizer")
	litTestsFailed   = []byte("tests failed out of")
	litErrorDomain   = []byte("Error Domain=")
)

func hasPrefix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[:len(s)]) == s
}

func hasSuffix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[len(b)-len(s):]) == s
}

var (
	clsError   = class{kind: KindError, ctx: ctxIndented}
	clsWarning = class{kind: KindWarning, ctx: ctxIndented}
	clsNote    = class{kind: KindNote, ctx: ctxIndented}
	clsCrash   = class{kind: KindCrash, ctx: ctxAny}
	clsFailure = class{kind: KindFailure, ctx: ctxIndented}
	clsSummary = class{kind: KindSummary}
	clsProg    = class{kind: KindProgress}
)

func with(c class, tool string) class { c.tool = tool; return c }

// classifyPrefix recognises lines by how they begin.
func classifyPrefix(b []byte, indent int) (class, bool) {
	switch b[0] {
	case '*':
		if hasPrefix(b, "** ") {
			if bytes.Contains(b, litFailed) {
				return with(clsFailure, "xcodebuild"), true
			}
			return with(clsSummary, "xcodebuild"), true
		}
		if hasPrefix(b, "*** ") {
			return clsCrash, true // glibc "*** stack smashing detected ***", "*** Terminating app due to uncaught exception"
		}
	case '-':
		if hasPrefix(b, "--- FAIL") {
			return with(clsFailure, "go"), true
		}
		if hasPrefix(b, "--- PASS") || hasPrefix(b, "--- SKIP") {
			return with(clsProg, "go"), true
		}
		if hasPrefix(b, "-- ") {
			if bytes.Contains(b, litError) {
				return with(class{kind: KindFailure}, "cmake"), true // "-- Configuring incomplete, errors occurred!"
			}
			return with(clsProg, "cmake"), true
		}
		if hasPrefix(b, "---- ") && hasSuffix(b, " ----") {
			return with(class{kind: KindOther, ctx: ctxAny}, "cargo"), true // "---- tests::x stdout ----"
		}
	case '#':
		return classifyAutomakeTally(b)
	case '=':
		if hasPrefix(b, "=== ") {
			return clsProg, true
		}
		if hasPrefix(b, "==") && len(b) > 2 && isDigit(b[2]) && bytes.Contains(b, litSanitizer) {
			return with(clsCrash, "sanitizer"), true // "==123==ERROR: AddressSanitizer: heap-use-after-free"
		}
	case 'F':
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
	case 'f':
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
	case 'e':
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
	case 'E':
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
	case 'w':
		if hasPrefix(b, "warning:") || hasPrefix(b, "warning[") {
			return clsWarning, true
		}
	case 'W':
		if hasPrefix(b, "WARNING: ") && bytes.Contains(b, litSanitizer) {
			return with(clsCrash, "sanitizer"), true
		}
		if string(b) == "WARNING: DATA RACE" {
			return with(clsCrash, "go"), true // the race detector's report, ThreadSanitizer's in Go
		}
		if hasPrefix(b, "Warning:") || hasPrefix(b, "WARNING:") {
			return clsWarning, true
		}
	case 'n':
		if hasPrefix(b, "note:") {
			return clsNote, true
		}
		if hasPrefix(b, "ninja: build stopped") {
			return with(class{kind: KindFailure}, "ninja"), true
		}
	case 'p':
		if hasPrefix(b, "panic:") {
			return with(clsCrash, "go"), true
		}
		if c, ok := isProcessFailure(b); ok {
			return c, true
		}
	case 't':
		return classifyLowerT(b)
	case 'T':
		return classifyUpperT(b, indent)
	case 'U':
		if hasPrefix(b, "Use \"--rerun-failed") {
			return with(clsSummary, "ctest"), true
		}
		if hasPrefix(b, "Undefined symbols for architecture") {
			return class{kind: KindLinker, block: KindLinker, tool: "ld"}, true
		}
		if hasPrefix(b, "UndefinedBehaviorSanitizer") {
			return with(clsCrash, "sanitizer"), true
		}
	case 'u':
		if hasPrefix(b, "undefined reference to") {
			return with(class{kind: KindLinker, ctx: ctxIndented}, "ld"), true
		}
	case 'l':
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
	case 'c':
		if hasPrefix(b, "collect2: ") {
			return class{kind: KindLinker, tool: "ld"}, true
		}
		if hasPrefix(b, "clang: error:") || hasPrefix(b, "clang++: error:") {
			if bytes.Contains(b, []byte("linker command failed")) {
				return class{kind: KindLinker, tool: "ld"}, true
			}
			return with(clsError, "clang"), true
		}
	case 'C':
		switch {
		case hasPrefix(b, "CMake Error"):
			return with(clsError, "cmake"), true
		case hasPrefix(b, "CMake Warning"), hasPrefix(b, "CMake Deprecation Warning"):
			return with(clsWarning, "cmake"), true
		case hasPrefix(b, "Compiling ") || hasPrefix(b, "CompileC ") || hasPrefix(b, "CompileSwift"):
			return clsProg, true
		}
	case 'm':
		if hasPrefix(b, "make") && isMakeFailure(b[4:]) {
			return makeFailure(b), true
		}
		if hasPrefix(b, "malloc(): ") || hasPrefix(b, "munmap_chunk(): ") {
			return with(clsCrash, "glibc"), true
		}
	case 'g':
		if hasPrefix(b, "gmake") && isMakeFailure(b[5:]) {
			return makeFailure(b), true
		}
		if hasPrefix(b, "goroutine ") {
			return class{kind: KindOther, tool: "go"}, true
		}
	case 'd':
		if hasPrefix(b, "double free or corruption") {
			return with(clsCrash, "glibc"), true
		}
	case 'S':
		switch {
		case hasPrefix(b, "Segmentation fault"), hasPrefix(b, "SIGSEGV"), hasPrefix(b, "SIGABRT"), hasPrefix(b, "SIGBUS"), hasPrefix(b, "SIGILL"), hasPrefix(b, "SIGFPE"):
			return clsCrash, true
		case hasPrefix(b, "SUMMARY: ") && bytes.Contains(b, litSanitizer):
			return class{kind: KindCrash, tool: "sanitizer"}, true // the shadow-byte dump after it is noise
		}
	case 'A':
		if hasPrefix(b, "Aborted") || hasPrefix(b, "Abort trap") || hasPrefix(b, "Assertion failed") || hasPrefix(b, "AddressSanitizer") {
			return clsCrash, true
		}
	case 'B':
		switch {
		case hasPrefix(b, "Bus error"):
			return clsCrash, true
		case hasPrefix(b, "Build complete!"), hasPrefix(b, "BUILD SUCCESSFUL"):
			return clsSummary, true
		case hasPrefix(b, "BUILD FAILED"):
			return class{kind: KindFailure}, true
		}
	case 'I':
		if hasPrefix(b, "Illegal instruction") {
			return clsCrash, true
		}
	case 'K':
		if string(b) == "Killed" || hasPrefix(b, "Killed: 9") {
			return clsCrash, true
		}
	case 'R':
		if hasPrefix(b, "Restarting after unexpected exit") {
			return with(clsCrash, "xctest"), true
		}
	case 'P':
		if string(b) == "PASS" {
			return with(clsSummary, "go"), true
		}
		if hasPrefix(b, "Precondition failed") {
			return with(clsCrash, "swift"), true
		}
	case 'o':
		if hasPrefix(b, "ok  ") || hasPrefix(b, "ok \t") {
			return with(clsSummary, "go"), true
		}
	case '[':
		if hasPrefix(b, "[signal ") {
			return with(clsCrash, "go"), true
		}
	case '(':
		if hasSuffix(b, " failures)") || hasSuffix(b, " failure)") {
			return with(class{kind: KindFailure}, "xcodebuild"), true // closes "The following build commands failed:"
		}
	case 0xE2, 0xF4:
		return classifyGlyph(b)
	default:
		if isDigit(b[0]) {
			return classifyDigit(b)
		}
	}
	return class{}, false
}
