package logfilter

import (
	"bytes"

	"github.com/triage-dev/triage/internal/alarm"
)

// ctxMode says which following lines belong to a diagnostic as its context.
type ctxMode uint8

const (
	ctxNone     ctxMode = iota
	ctxIndented         // indented lines, gutters, carets, notes (gcc, clang, swiftc, rustc, cmake)
	ctxAny              // any line, up to a cap (panics, sanitizer reports, uncaught exceptions)
	ctxHash             // TAP comment lines, "#   at t/x.t line 6." (Test::More's diagnostics): isHashContext
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
	// clsAlarm is a line no rule knows that holds a word of the alarm table
	// ("7/8 t FAIL 0.11s killed by signal 11 SIGSEGV"): kept at every level,
	// neither counted nor a diagnostic (Summary.Alarm says it). A passing
	// test's output may hold such words; a run's verdict weighs them only
	// when no recognised runner's summary vouches for it.
	clsAlarm = class{kind: KindFailure, tool: "alarm"}
	// clsTestMoreFailed is clsAlarm for Test::More's "#   Failed test
	// 'name'": the comments after it say where the assertion is and what it
	// got, its context. Not folded: two test files may fail a test of the
	// same name at different places.
	clsTestMoreFailed = class{kind: KindFailure, tool: "alarm", ctx: ctxHash}
)

// alarmClass is the class of a line no rule knows that holds the alarm
// table's word h.
func alarmClass(h alarm.Hit) class {
	if h.Word == alarm.TestMoreFailed {
		return clsTestMoreFailed
	}
	return clsAlarm
}

// isAlarm reports the classes alarmClass gives: kept, never counted. It is
// asked of most lines, which are of another kind.
func (c class) isAlarm() bool {
	return c.kind == KindFailure && (c == clsAlarm || c == clsTestMoreFailed)
}

// isHashContext reports a line that goes on the TAP comments of a
// Test::More failure (body without its indent): another comment that no
// rule makes more than a plain line. A blank line, a TAP result or a
// comment that says something of its own ("# Looks like you failed 1 test
// of 3.", an alarm) ends them.
func isHashContext(body []byte, c class) bool {
	return len(body) > 0 && body[0] == '#' && c.kind < KindWarning && c.kind != KindSummary
}

func with(c class, tool string) class { c.tool = tool; return c }
