package logfilter

import "bytes"

// Lines recognised by a tally, a tool's failure phrase, a first letter or
// digit, or a glyph: the helpers of classifyPrefix.

// classifyAutomakeTally reads automake's test-suite summary, "# TOTAL: 3",
// "# FAIL:  2": a non-zero FAIL, XPASS or ERROR count is a failure.
func classifyAutomakeTally(b []byte) (class, bool) {
	for _, word := range []string{"# TOTAL:", "# PASS:", "# SKIP:", "# XFAIL:", "# FAIL:", "# XPASS:", "# ERROR:"} {
		if !hasPrefix(b, word) {
			continue
		}
		n := bytes.TrimSpace(b[len(word):])
		if (word == "# FAIL:" || word == "# XPASS:" || word == "# ERROR:") && len(n) > 0 && string(n) != "0" {
			return with(class{kind: KindFailure}, "automake"), true
		}
		return with(clsSummary, "automake"), true
	}
	return class{}, false
}

func (c class) asLinker() class { c.kind = KindLinker; return c }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isMakeFailure checks what follows "make": "[2]: *** [x] Error 1" or ": *** ...".
func isMakeFailure(rest []byte) bool {
	if len(rest) > 0 && rest[0] == '[' {
		i := bytes.IndexByte(rest, ']')
		if i < 0 {
			return false
		}
		rest = rest[i+1:]
	}
	return hasPrefix(rest, ": *** ")
}

// makeFailure classes make's "*** [Makefile:17: test] Error 2", or a
// crash when make names the signal that killed the recipe's program:
// "*** [Makefile:17: test] Segmentation fault (core dumped)".
func makeFailure(b []byte) class {
	if i := bytes.LastIndexByte(b, ']'); i > 0 && i+2 < len(b) && isSignalWords(b[i+2:]) {
		return with(clsCrash, "make")
	}
	return with(class{kind: KindFailure}, "make")
}

// isProcessFailure reads cargo's "process didn't exit successfully: `…`
// (signal: 6, SIGABRT: process abort signal)": a crash with a signal, a
// failure with an exit status.
func isProcessFailure(b []byte) (class, bool) {
	if !hasPrefix(b, "process didn't exit successfully") {
		return class{}, false
	}
	if bytes.Contains(b, []byte("(signal: ")) {
		return with(clsCrash, "cargo"), true
	}
	return with(class{kind: KindFailure}, "cargo"), true
}

func classifyLowerT(b []byte) (class, bool) {
	switch {
	case hasPrefix(b, "thread '") && (bytes.Contains(b, litPanickedAt) || bytes.Contains(b, []byte(" has overflowed its stack"))):
		return with(clsCrash, "rust"), true
	case hasPrefix(b, "test result: "):
		if bytes.Contains(b, litFailed) {
			return with(class{kind: KindFailure}, "cargo"), true
		}
		return with(clsSummary, "cargo"), true
	case hasPrefix(b, "test ") && bytes.Contains(b, []byte(" ... ")):
		if hasSuffix(b, "FAILED") {
			return with(class{kind: KindFailure}, "cargo"), true
		}
		if c, ok := cutResultLine(b); ok {
			return c, true
		}
		return with(clsProg, "cargo"), true
	case hasPrefix(b, "terminate called"):
		return with(clsCrash, "c++"), true
	}
	return class{}, false
}

func classifyUpperT(b []byte, indent int) (class, bool) {
	switch {
	case hasPrefix(b, "Test Case '") || hasPrefix(b, "Test case '") || hasPrefix(b, "Test Suite '") || hasPrefix(b, "Test suite '"):
		open := bytes.IndexByte(b, '\'')
		rest := b[open+1:]
		if q := bytes.IndexByte(rest, '\''); q >= 0 {
			rest = rest[q:]
		}
		switch {
		case hasPrefix(rest, "' failed"):
			return with(clsFailure, "xctest"), true
		case bytes.Contains(rest, litCrashed):
			return with(clsCrash, "xctest"), true
		}
		return with(clsProg, "xctest"), true
	case hasPrefix(b, "Testing failed:"):
		return class{kind: KindFailure, block: KindFailure, tool: "xcodebuild"}, true
	case hasPrefix(b, "The following build commands failed:"):
		return class{kind: KindFailure, block: KindFailure, tool: "xcodebuild"}, true
	case hasPrefix(b, "The following tests FAILED:"):
		return class{kind: KindFailure, block: KindFailure, tool: "ctest"}, true
	case hasPrefix(b, "Test run with ") || hasPrefix(b, "Test Run With"):
		if bytes.Contains(b, litFailedLower) {
			return with(class{kind: KindFailure}, "swift-testing"), true
		}
		return with(clsSummary, "swift-testing"), true
	case hasPrefix(b, "Test crashed") || hasPrefix(b, "Test runner exited"):
		return with(clsCrash, "xctest"), true
	}
	return class{}, false
}

// classifyDigit handles CTest's result lines and the compilers' tallies.
func classifyDigit(b []byte) (class, bool) {
	// "3/4 Test #3: crash ........***Exception: SegFault  0.01 sec"
	if i := bytes.Index(b, []byte(" Test ")); i > 0 && i < 12 && bytes.IndexByte(b[:i], '/') > 0 {
		if bytes.Contains(b, []byte("***")) || bytes.Contains(b, []byte("Failed")) {
			if bytes.Contains(b, []byte("Exception")) {
				return with(clsCrash, "ctest"), true
			}
			return with(class{kind: KindFailure}, "ctest"), true
		}
		return with(clsProg, "ctest"), true
	}
	// "50% tests passed, 1 tests failed out of 2"
	if bytes.Contains(b, litTestsFailed) {
		if bytes.Contains(b, []byte(", 0 tests failed")) {
			return with(clsSummary, "ctest"), true
		}
		return with(class{kind: KindFailure}, "ctest"), true
	}
	// "2 errors generated.", "1 warning generated."
	if hasSuffix(b, " generated.") {
		return clsSummary, true
	}
	return class{}, false
}

// Swift Testing prints either Unicode symbols or, on macOS, SF Symbols from
// the private-use plane; xcbeautify prints ❌ and ⚠️.
const (
	glyphFail        = "\u2718"     // ✘
	glyphPass        = "\u2714"     // ✔
	glyphStart       = "\u25c7"     // ◇
	glyphDetail      = "\u21b3"     // ↳
	glyphSkip        = "\u279c"     // ➜
	glyphWarn        = "\u26a0"     // ⚠
	glyphCross       = "\u274c"     // ❌
	sfFail           = "\U00100884" // xmark.diamond.fill
	sfPass           = "\U0010105b" // checkmark.diamond.fill
	sfStart          = "\U001007c8" // diamond
	sfDetail         = "\U00100135" // arrow.turn.down.right
	sfSkip           = "\U0010065f" // arrow.triangle.turn.up.right.diamond.fill
	sfWarn           = "\U001001ff" // exclamationmark.triangle.fill
	sfPassKnownIssue = "\U00100dac"
)

func classifyGlyph(b []byte) (class, bool) {
	switch {
	case hasPrefix(b, glyphFail), hasPrefix(b, sfFail):
		return with(clsFailure, "swift-testing"), true
	case hasPrefix(b, glyphPass), hasPrefix(b, sfPass), hasPrefix(b, sfPassKnownIssue):
		if bytes.Contains(b[:min(len(b), 24)], []byte("Test run with")) {
			return with(clsSummary, "swift-testing"), true
		}
		return with(clsProg, "swift-testing"), true
	case hasPrefix(b, glyphStart), hasPrefix(b, sfStart), hasPrefix(b, glyphSkip), hasPrefix(b, sfSkip):
		return with(clsProg, "swift-testing"), true
	case hasPrefix(b, glyphDetail), hasPrefix(b, sfDetail):
		return class{kind: KindOther, tool: "swift-testing"}, true
	case hasPrefix(b, glyphCross):
		return with(clsError, "xcbeautify"), true
	case hasPrefix(b, glyphWarn), hasPrefix(b, sfWarn):
		return with(clsWarning, "xcbeautify"), true
	}
	return class{}, false
}

// stripNSLogPrefix returns the message of an NSLog/os_log line,
// "2016-09-23 02:09:52.616 XCTRunner[1705:7891] message", or nil.
func stripNSLogPrefix(b []byte) []byte {
	if len(b) < 24 || !isDigit(b[0]) || b[4] != '-' || b[7] != '-' || b[13] != ':' {
		return nil
	}
	end := bytes.Index(b[20:min(len(b), 160)], []byte("] "))
	if end < 0 {
		return nil
	}
	return b[20+end+2:]
}

// cutResultLine classifies a libtest line whose result never came: the
// binary died while writing it, and what follows " ... " is the next
// output on the same stream (cargo's "error: test failed", a panic), which
// must be kept as if it had a line of its own.
func cutResultLine(b []byte) (class, bool) {
	rest := b[bytes.Index(b, []byte(" ... "))+len(" ... "):]
	for _, r := range []string{"ok", "FAILED", "ignored", "bench:"} {
		if hasPrefix(rest, r) {
			return class{}, false
		}
	}
	if len(rest) == 0 {
		return class{}, false
	}
	c := classifyGlued(rest)
	return c, c.kind != KindOther
}

// classifyGlued is classify, set at init: the prefix rules' table reaches
// cutResultLine, so referring to classify here directly would make the
// table's initialization depend on itself.
var classifyGlued func([]byte) class

func init() { classifyGlued = classify }
