package logfilter

import (
	"bytes"

	"github.com/triage-dev/triage/internal/bigram"
)

// classifyColons looks at the words around each ':' of a line: almost every
// diagnostic format puts its keyword right after "file:line:col: " or right
// before a colon ("Caught error:", "Precondition failed:").
func classifyColons(b []byte, indent int) (class, bool) {
	for off, first := 0, true; off < len(b); first = false {
		i := bytes.IndexByte(b[off:], ':')
		if i < 0 {
			break
		}
		i += off
		off = i + 1
		if c, ok := beforeColon(b[:i]); ok {
			return c, true
		}
		if i+2 < len(b) && b[i+1] == ' ' {
			if c, ok := afterColon(b[i+2:]); ok {
				if c.tool == "" {
					c.tool = toolForFile(b[:i])
				}
				return c, true
			}
		}
		// The Go compiler and vet print "./x.go:12:3: undefined: y" with no
		// keyword at all.
		if first && indent == 0 && i+1 < len(b) && isDigit(b[i+1]) && hasSuffix(b[:i], ".go") {
			return with(clsError, "go"), true
		}
	}
	return class{}, false
}

// beforeColon checks the word that ends just before a colon.
func beforeColon(pre []byte) (class, bool) {
	w := lastWord(pre)
	switch string(w) {
	case "error", "Error", "ERROR":
		return clsError, true
	case "failed", "Failed", "FAILED":
		prev := lastWord(bytes.TrimRight(pre[:len(pre)-len(w)], " "))
		if string(prev) == "Precondition" || string(prev) == "Assertion" {
			return with(clsCrash, "swift"), true
		}
		return clsFailure, true
	case "Failure", "failure":
		return clsFailure, true
	case "FAIL", "XPASS":
		// Unity's "tests/x.c:56:test_name:FAIL: Expected 1 Was 2",
		// automake's "FAIL: test_x" and "XPASS: test_y".
		return clsFailure, true
	case "panic":
		return with(clsCrash, "go"), true
	}
	return class{}, false
}

// lastWord returns the trailing run of ASCII letters of b, at most 12 bytes.
func lastWord(b []byte) []byte {
	i := len(b)
	for i > 0 && len(b)-i < 12 && isLetter(b[i-1]) {
		i--
	}
	if i > 0 && isLetter(b[i-1]) {
		return nil // longer word: not one of ours
	}
	return b[i:]
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// afterColon checks what follows ": ": a keyword from afterColonRules, or
// a shell's report of a signal.
func afterColon(a []byte) (class, bool) {
	if len(a) == 0 {
		return class{}, false
	}
	for _, r := range afterColonRules[a[0]] {
		if hasPrefix(a, r.prefix) {
			return r.class, true
		}
	}
	// A shell reporting a signal: "line 1: 12345 Segmentation fault (core dumped)".
	i := 0
	for i < len(a) && (isDigit(a[i]) || a[i] == ' ') {
		i++
	}
	if isSignalWords(a[i:]) {
		return clsCrash, true
	}
	return class{}, false
}

// prefixRule classes a text that starts with prefix.
type prefixRule struct {
	prefix string
	class  class
}

// afterColonRules are the keywords that may follow ": ", by their first
// byte; the first that prefixes the text wins.
var afterColonRules = func() (t [256][]prefixRule) {
	for _, r := range []prefixRule{
		{"error:", clsError},
		{"error[", clsError},
		{"fatal error:", clsError}, // gcc/clang: a missing header and the like
		{"Fatal error", with(clsCrash, "swift")},
		{"Failed ", class{kind: KindFailure}}, // "check.c:3: FAIL compare: …"
		{"FAIL", class{kind: KindFailure}},
		{"warning:", clsWarning},
		{"note:", clsNote},
		{"runtime error:", with(clsCrash, "sanitizer")},
		// "testing.go:1712: race detected during execution of test"
		{"race detected", with(class{kind: KindFailure}, "go")},
		{"undefined reference", class{kind: KindLinker, ctx: ctxIndented, tool: "ld"}},
		{"undefined symbol", class{kind: KindLinker, ctx: ctxIndented, tool: "ld"}},
		{"multiple definition of", class{kind: KindLinker, ctx: ctxIndented, tool: "ld"}},
		{"cannot find -l", class{kind: KindLinker, tool: "ld"}},
		{"terminating", with(clsCrash, "c++")},
		{"Timed out", class{kind: KindFailure}},
		{"Assertion `", with(clsCrash, "libc")},
	} {
		t[r.prefix[0]] = append(t[r.prefix[0]], r)
	}
	return t
}()

func isSignalWords(a []byte) bool {
	if len(a) == 0 {
		return false
	}
	switch a[0] {
	case 'S':
		return hasPrefix(a, "Segmentation fault")
	case 'A':
		return hasPrefix(a, "Aborted") || hasPrefix(a, "Abort trap")
	case 'B':
		return hasPrefix(a, "Bus error")
	case 'I':
		return hasPrefix(a, "Illegal instruction")
	case 'F':
		return hasPrefix(a, "Floating point exception")
	case 'K':
		return hasPrefix(a, "Killed")
	case 'T':
		return hasPrefix(a, "Trace/breakpoint trap")
	}
	return false
}

// classifyMidline is the last resort: XCTest reports crashed runners in the
// middle of lines.
// midlineWords rules out, in one pass, the lines classifyMidline's searches
// would not find anything in: most lines of a long output.
var midlineWords = bigram.New([]string{string(litCrashed), string(litUnexpectedExt), string(litErrorDomain)})

func classifyMidline(b []byte) class {
	if hasSuffix(b, " has overflowed its stack") {
		return with(clsCrash, "rust") // stderr's line, cut by stdout's
	}
	if !midlineWords.Maybe(b) {
		return class{}
	}
	if bytes.Contains(b, litCrashed) || bytes.Contains(b, litUnexpectedExt) {
		return with(clsCrash, "xctest")
	}
	if bytes.Contains(b, litErrorDomain) {
		return class{kind: KindError} // an NSError, as xcodebuild prints them
	}
	return class{}
}

// toolForFile guesses the compiler from the file a diagnostic points at.
func toolForFile(loc []byte) string {
	if i := bytes.IndexByte(loc, ':'); i >= 0 {
		loc = loc[:i]
	}
	dot := bytes.LastIndexByte(loc, '.')
	if dot < 0 {
		return ""
	}
	switch string(loc[dot+1:]) {
	case "go":
		return "go"
	case "rs":
		return "rustc"
	case "swift":
		return "swiftc"
	case "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "m", "mm":
		return "cc"
	case "txt", "cmake":
		return "cmake"
	case "o", "a", "so", "dylib":
		return "ld"
	}
	return ""
}
