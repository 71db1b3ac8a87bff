package alarm

import (
	"bytes"
	"regexp"
	"sync"
)

// The other half of failing safe: a log that shows tests running is a
// test run, whatever wrote it, and a test run passes only on a runner's
// summary that says so. TestsRun finds the words in which runners say
// tests start or run ("collected 3 items", "Running 12 tests", "test_a
// ... ok", "Test 2/5: eval"); PassSummary finds a closing count line of
// any runner that says tests passed ("3 passed in 0.12s", "12 passed, 0
// failed", "All tests passed", "OK (12 tests)"). A log that shows the one
// without the other after it is no success: its run may have ended
// halfway (a crash that printed nothing, exit(0) in a test, the log cut).

// announceRE: a runner's announcement, after announces' look at its
// first word: "Running 12 tests", "running 3 test cases", "Starting 4
// tests across 1 binary", "Executing 5 specs", pytest's "collected 3
// items", "Test 2/5: eval", "Test #3 parse", "Testing 1/4".
var announceRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:` +
		`(?i:running|starting|executing|run) \d+ (?i:tests?|test cases?|test suites?|checks?|specs?|examples?|cases?)\b` +
		`|collected \d+ items?\b` +
		`|Test(?:ing)? #?\d+(?:/\d+)?[: ])`)
})

// TestsRun reports whether line says that tests start or run: a test
// runner's announcement, or a test's own result line ("test_a ... ok",
// pytest -v's "t.py::test_a PASSED"). Most lines of a build log are
// passed over by a look at their first word and at the " ... " or "::"
// a result line holds.
func TestsRun(line []byte) bool {
	body := trimDecor(line)
	if len(body) < 8 {
		return false
	}
	if announces(body) && announceRE().Match(body) {
		return true
	}
	return dotsResult(body) || pytestResult(body)
}

// dotsResult: "NAME ... ok", "test x (m.C) ... FAIL", the result word
// first after the dots.
func dotsResult(body []byte) bool {
	i := bytes.Index(body, []byte("... "))               // '.' is rarer than ' '
	if i < 2 || (body[i-1] != ' ' && body[i-1] != '.') { // "t_a ........ ok" too
		return false
	}
	return resultWord(body[i+4:], "ok", "passed", "pass", "fail", "failed", "error", "skipped")
}

// pytestResult: "tests/t.py::test_a PASSED [ 33%]".
func pytestResult(body []byte) bool {
	sp := bytes.IndexByte(body, ' ')
	if sp < 0 || !bytes.Contains(body[:sp], []byte("::")) {
		return false
	}
	return resultWord(body[sp+1:], "PASSED", "FAILED", "ERROR", "SKIPPED")
}

// resultWord tells rest that begins with one of words, then ends or goes
// on with a non-letter. A lower-case word matches in any case ("ok", "OK",
// "FAIL"); an upper-case one as written (pytest's "PASSED").
func resultWord(rest []byte, words ...string) bool {
	for _, w := range words {
		if len(rest) < len(w) || (len(rest) > len(w) && isLetter(rest[len(w)])) {
			continue
		}
		got := rest[:len(w)]
		if string(got) == w || (w[0] >= 'a' && bytes.EqualFold(got, []byte(w))) {
			return true
		}
	}
	return false
}

// announceWords begin a runner's announcement: the first word, lower
// case, followed by a space and a count.
var announceWords = []string{"running", "starting", "executing", "run", "collected", "test", "testing"}

// announces tells a line whose first word is an announcement's, followed
// by a space and a digit or '#'.
func announces(body []byte) bool {
	sp := bytes.IndexByte(body[:min(len(body), 11)], ' ')
	if sp < 3 || sp+1 >= len(body) || (body[sp+1] != '#' && (body[sp+1] < '0' || body[sp+1] > '9')) {
		return false
	}
	var word [10]byte
	for i, b := range body[:sp] {
		word[i] = b | 0x20 // ASCII lower case; a non-letter matches no word
	}
	for _, w := range announceWords {
		if string(word[:sp]) == w {
			return true
		}
	}
	return false
}

// trimDecor drops the spaces and rules a runner puts before its words
// ("    Starting", "== Running", "*** Test").
func trimDecor(line []byte) []byte {
	i := 0
	for i < len(line) && decor[line[i]] {
		i++
	}
	return line[i:]
}

var decor = [256]bool{' ': true, '\t': true, '=': true, '-': true, '*': true, '#': true, '>': true}

func isLetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

// passSummaryRE: a closing count line that says tests passed.
var passSummaryRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:\b[1-9]\d* (?:tests? |checks? |cases? |examples? )?passed\b` +
		`|\ball (?:\d+ )?(?:tests?|checks?) (?:passed|succeeded|ok)\b` +
		`|(?-i:^OK(?: \(\d+ tests?(?:, \d+ \w+)*\))?$)` +
		// a tally's count of passes: meson's "Ok: 3", automake's "# PASS: 3"
		`|^(?:ok|pass|passed|success|succeeded):\s+[1-9]\d*\s*$` +
		`|\b0 (?:failed|failures?|errors?)\b)`)
})

// PassSummary reports whether line is a runner's closing count line that
// says tests passed, and no test failed: "3 passed in 0.12s", "12 passed,
// 0 failed", "All tests passed", "OK (12 tests)", "ran 3 checks, 0
// failures". A line that also counts a failure is an alarm, not this.
func PassSummary(line []byte) bool {
	body := bytes.Trim(line, " \t=-*#>")
	if len(body) < 2 || len(body) > 200 || !mayCountPasses(body) {
		return false
	}
	if !passSummaryRE().Match(body) {
		return false
	}
	_, alarmed := Match(body)
	return !alarmed
}

// mayCountPasses is the cheap look before PassSummary, one pass over the
// line: a line without one of the words it needs ("pass" in any case,
// "OK", "Ok", " ok", "0 fail", "0 error") is none.
func mayCountPasses(b []byte) bool {
	if len(b) > 256 {
		return false
	}
	for i := 1; i+1 < len(b); i++ {
		switch b[i] {
		case 'a', 'A':
			if b[i-1]|0x20 == 'p' && i+2 < len(b) && b[i+1]|0x20 == 's' && b[i+2]|0x20 == 's' {
				return true
			}
		case ' ':
			if b[i-1] == '0' && (b[i+1] == 'f' || b[i+1] == 'e') {
				return true
			}
		}
	}
	for i := 1; i < len(b); i++ {
		if b[i]|0x20 == 'k' && (b[i-1] == 'O' || b[i-1] == 'o' && (i == 1 || b[i-2] == ' ')) {
			return true
		}
	}
	return false
}
