package testreport

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// What the readers of TAP, GoogleTest, Catch2 and doctest output (tap.go,
// gtest.go, catch2.go, doctest.go: a test program run directly) share:
// finding which of them wrote a sample, and the lines that say a test
// program died.

// detectFramework names the framework whose own output a sample is, or "".
// DetectFormat asks it after every runner's format, so a runner's log that
// holds a framework's lines (CTest's --output-on-failure, automake's TAP
// driver, meson's log) stays the runner's. Each anchor is a line only its
// framework prints.
func detectFramework(sample []byte) string {
	switch {
	case gtestAnchorRE().Match(sample):
		return FormatGTest
	case doctestAnchorRE().Match(sample):
		return FormatDoctest
	case catch2AnchorRE().Match(sample):
		return FormatCatch2
	case tapAnchorRE().Match(sample):
		return FormatTAP
	}
	return ""
}

// shellSignals are the words in which a shell or make reports the signal
// that killed a program, by the signal they name.
var shellSignals = []struct{ word, signal string }{
	{"Segmentation fault", "SIGSEGV"},
	{"Aborted", "SIGABRT"},
	{"Bus error", "SIGBUS"},
	{"Illegal instruction", "SIGILL"},
	{"Floating point exception", "SIGFPE"},
	{"Trace/breakpoint trap", "SIGTRAP"},
	{"Killed", "SIGKILL"},
}

// makeErrorRE is make's line for a recipe that failed: "make: ***
// [Makefile:4: test] Error 139", or the signal's name when make ran the
// program itself ("make[1]: *** [Makefile:4: test] Segmentation fault").
var makeErrorRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^g?make(?:\[\d+\])?: \*\*\* \[[^\]]*\] (?:Error (\d+)|(.+?))(?: \(core dumped\))?$`)
})

// crashEvidence reads a line printed after a test program died: the shell's
// report of the signal ("Segmentation fault (core dumped)", bash's "line 1:
// 4242 Aborted  ./t"), make's "Error 139" (128+11: a signal that dumps
// core) or signal name, a sanitizer's report, the C++ runtime's "terminate
// called after throwing an instance of 'std::runtime_error'". It returns
// what the line says ("SIGSEGV (Segmentation fault)"), or "".
func crashEvidence(line string) string {
	t := strings.TrimSpace(line)
	if m := makeErrorRE().FindStringSubmatch(t); m != nil {
		if m[1] != "" {
			n, _ := strconv.Atoi(m[1])
			if sig := coreSignals[n-128]; n > 128 && sig != "" {
				return fmt.Sprintf("%s (make: exit status %d)", sig, n)
			}
			return ""
		}
		t = m[2]
	}
	if isSanitizerReport(t) && !isRaceStart(t) {
		return sanitizerMessage(t)
	}
	if strings.HasPrefix(t, "terminate called after throwing") || strings.HasPrefix(t, "terminate called without an active exception") {
		return "uncaught C++ exception: " + t
	}
	// "Segmentation fault", "Aborted (core dumped)", bash's "bash: line 1:
	// 4242 Segmentation fault      (core dumped) ./t".
	for _, s := range shellSignals {
		before, after, ok := strings.Cut(t, s.word)
		if !ok || before != "" && !shellJobPrefixRE().MatchString(before) {
			continue
		}
		if after = strings.TrimSpace(after); before == "" && after != "" && !strings.HasPrefix(after, "(core dumped)") {
			continue // prose that starts with the word
		}
		return s.signal + " (" + s.word + ")"
	}
	return ""
}

// shellJobPrefixRE is what a shell prints before the signal's name: bash's
// "bash: line 1: 4242 " or "bash:  4242 ", dash's "/bin/sh: 1: ".
var shellJobPrefixRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\S+:(?:(?: line \d+:| \d+:) +(?:\d+ +)?| +\d+ +)$`)
})

// maxCount bounds a count read from a framework's output: a summary's
// passed count becomes as many cases when the framework does not name them.
const maxCount = 1 << 16

// tallyCount reads a count of a framework's output, 0 when it is not one,
// at most maxCount.
func tallyCount(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return min(n, maxCount)
}

// isRuleOf reports whether l is a rule of ch, as Catch2 and doctest draw
// them (79 or 80 columns).
func isRuleOf(l string, ch byte) bool {
	return len(l) >= 70 && strings.Count(l, string(ch)) == len(l)
}
