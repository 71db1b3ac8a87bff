// Package alarm is the one table of the words in which a test runner, a
// shell, a runtime or a sanitizer says that something crashed, was killed,
// timed out or failed: "killed by signal 11 SIGSEGV" (meson), "***Timeout"
// (CTest), "Segmentation fault (core dumped)" (a shell), "FAIL: 3"
// (automake), "1 failed" (Catch2, pytest), "not ok 4" (TAP), "ERROR:
// AddressSanitizer", "panic: ".
//
// It is the floor under every reader of a known format: a log that no
// recognised runner's summary vouches for is never a success while one of
// its lines holds such a word (pipeline's conclusion), and the log filter
// keeps those lines at every level. The words are matched as words: "FAIL"
// is not "XFAIL", and a count of zero ("Fail: 0", "0 tests failed") is no
// alarm.
package alarm

import "bytes"

// Class is what an alarm says happened. Higher is more severe.
type Class uint8

const (
	None    Class = iota
	Failure       // a test failed, a failure count above zero
	Timeout       // a runner's time limit ended a test
	Crash         // a signal, a kill, a core, a sanitizer report, a panic
)

var classNames = [...]string{"none", "failure", "timeout", "crash"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "unknown"
}

// Hit is the word a line holds.
type Hit struct {
	Word  string // the table's name for it: "killed by signal", "FAIL"
	Class Class
}

// Match returns the first word of the most severe class of the table that
// line holds (ANSI colour already removed, no line ending); ok is false
// when it holds none.
//
// The line is read once, word by word: a word either starts a phrase of the
// table (found by its first word), or is a capital word or a counted word
// of the token tables, or is passed over.
func Match(line []byte) (h Hit, ok bool) {
	if len(line) < 4 {
		return Hit{}, false
	}
	for i := 0; i < len(line); {
		if !wordByte[line[i]] {
			i++
			continue
		}
		j := i + 1
		for j < len(line) && wordByte[line[j]] {
			j++
		}
		if n := j - i; n < 32 && starts[line[i]]&(1<<n) != 0 {
			if c, w := wordAt(line, i, j); c > h.Class {
				h = Hit{Word: w, Class: c}
			}
		}
		i = j
	}
	if h.Class != None && isQuotedSource(line) {
		return Hit{}, false
	}
	return h, h.Class != None
}

// starts[b] has bit n set when a word of the table (a phrase's first word,
// a capital word, a counted word in any case) is n bytes long and starts
// with b: the one test most words of a line get.
var starts = func() (t [256]uint32) {
	for b, as := range anchors {
		for _, a := range as {
			t[b] |= 1 << len(a.word)
		}
	}
	for w := range capitals {
		t[w[0]] |= 1 << len(w)
	}
	for w := range counted {
		t[w[0]] |= 1 << len(w)
		t[w[0]-'a'+'A'] |= 1 << len(w)
	}
	return t
}()

// wordAt is what the word line[i:j] says, as the start of a phrase or as a
// token.
func wordAt(line []byte, i, j int) (Class, string) {
	best, name := None, ""
	for _, a := range anchors[line[i]] {
		if c := a.match(line, i, j); c > best {
			best, name = c, a.p.text
		}
	}
	if c, w := tokenClass(line, i, j); c > best {
		best, name = c, w
	}
	return best, name
}

// isQuotedSource reports a line that quotes source code rather than says
// anything: a compiler's gutter ("   12 |   abort();", "      |   ^~~~")
// and autoconf's checks ("checking for SIGSEGV handling... yes").
func isQuotedSource(line []byte) bool {
	body := bytes.TrimLeft(line, " \t")
	if bytes.HasPrefix(body, []byte("checking ")) {
		return true
	}
	i := 0
	for i < len(body) && body[i] >= '0' && body[i] <= '9' {
		i++
	}
	j := i
	for j < len(body) && body[j] == ' ' {
		j++
	}
	gutter := j < len(body) && body[j] == '|' && (j+1 == len(body) || body[j+1] == ' ' || body[j+1] == '\t')
	return gutter && (i > 0 || len(body) < len(line))
}
