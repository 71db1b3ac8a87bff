package alarm

import "bytes"

// phrase is a word of the table that is found as a literal, case as
// written. guard, when set, looks at the line and the literal's index and
// says what the line means (None: the literal is there but says nothing).
type phrase struct {
	text  string
	class Class
	guard func(line []byte, at int) Class
}

// phrases are the table's literal words, most severe class first within
// what a line may hold at once.
var phrases = []phrase{
	// Signals and kills, in runners' and shells' words.
	{text: "killed by signal", class: Crash, guard: signalKill},
	{text: "terminated by signal", class: Crash, guard: signalKill},
	{text: "received signal", class: Crash},
	{text: "caught signal", class: Crash},
	{text: "Caught signal", class: Crash},
	{text: "Segmentation fault", class: Crash},
	{text: "segmentation fault", class: Crash},
	{text: "Segmentation violation", class: Crash},
	{text: "Bus error", class: Crash},
	{text: "Illegal instruction", class: Crash},
	{text: "Floating point exception", class: Crash},
	{text: "core dumped", class: Crash},
	{text: "Aborted", class: Crash, guard: shellAborted},
	{text: "***Exception:", class: Crash},
	// Sanitizers, runtimes, C and C++ libraries.
	{text: "ERROR: AddressSanitizer", class: Crash},
	{text: "ERROR: HWAddressSanitizer", class: Crash},
	{text: "ERROR: LeakSanitizer", class: Crash},
	{text: "WARNING: ThreadSanitizer", class: Crash},
	{text: "WARNING: MemorySanitizer", class: Crash},
	{text: ": runtime error: ", class: Crash},
	{text: "WARNING: DATA RACE", class: Crash},
	{text: "panic: ", class: Crash, guard: goPanic},
	{text: " panicked at ", class: Crash},
	{text: "has overflowed its stack", class: Crash},
	{text: "fatal error: ", class: Crash, guard: fatalError},
	{text: "Fatal Python error", class: Crash},
	{text: "terminate called", class: Crash},
	{text: "libc++abi: terminating", class: Crash},
	{text: "Assertion", class: Crash, guard: assertionFailed},
	{text: "Unexpected signal caught", class: Crash},
	{text: "stack smashing detected", class: Crash},
	{text: "double free or corruption", class: Crash},
	{text: "corrupted size vs. prev_size", class: Crash},
	{text: "free(): invalid", class: Crash},
	{text: "malloc(): ", class: Crash},
	// Time limits.
	{text: "***Timeout", class: Timeout},
	{text: "timed out", class: Timeout},
	// Failures that no count or capital word says.
	{text: "not ok", class: Failure, guard: tapNotOK},
	{text: "Bail out!", class: Failure, guard: atLineStart},
	{text: "Unexpected Pass:", class: Failure, guard: countAfter},
	{text: "Traceback (most recent call last)", class: Failure},
	{text: TestMoreFailed, class: Failure, guard: tapComment},
}

// TestMoreFailed is Test::More's diagnostic of a failed assertion, a TAP
// comment on its stderr: "#   Failed test 'name'" (or "#   Failed test at
// t/x.t line 6."), then "#   at t/x.t line 6." and what it got. prove shows
// no "not ok" line unless -v, so this line is often the only one that
// names the assertion; the log filter keeps the comments after it as its
// context.
const TestMoreFailed = "Failed test"

// anchor is a phrase found by its first word: word starts off bytes into
// the phrase's text (": runtime error: " by "runtime", off 2).
type anchor struct {
	word string
	off  int
	p    *phrase
}

// match says what the phrase means when the word line[i:j] is its anchor.
func (a *anchor) match(line []byte, i, j int) Class {
	if j-i != len(a.word) || i < a.off || string(line[i:j]) != a.word ||
		!bytes.HasPrefix(line[i-a.off:], []byte(a.p.text)) {
		return None
	}
	if a.p.guard != nil {
		return a.p.guard(line, i-a.off)
	}
	return a.p.class
}

// anchors are the phrases by the first byte of their first word.
var anchors = func() (by [256][]anchor) {
	for k := range phrases {
		p := &phrases[k]
		off := 0
		for off < len(p.text) && !wordByte[p.text[off]] {
			off++
		}
		end := off
		for end < len(p.text) && wordByte[p.text[end]] {
			end++
		}
		by[p.text[off]] = append(by[p.text[off]], anchor{word: p.text[off:end], off: off, p: p})
	}
	return by
}()

// wordByte marks the bytes words are made of.
var wordByte = func() (t [256]bool) {
	for b := 0; b < 256; b++ {
		t[b] = b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
	}
	return t
}()

// signalKill: "killed by signal 15 SIGTERM" after a runner's TIMEOUT is
// the timeout's kill; any other is a crash.
func signalKill(line []byte, _ int) Class {
	if bytes.Contains(line, []byte("TIMEOUT")) {
		return Timeout
	}
	return Crash
}

// shellAborted is a shell's or make's report of an abort: "Aborted" alone,
// "Aborted (core dumped)", "bash: line 1: 4242 Aborted  ./a.out",
// "make: *** [t] Aborted". "Aborted transaction" in a program's own
// words is not one.
func shellAborted(line []byte, at int) Class {
	end := at + len("Aborted")
	after := end == len(line) || line[end] == ' ' || line[end] == '\t'
	before := bytes.TrimRight(line[:at], " \t")
	if len(before) == 0 {
		return pick(after && bytes.TrimSpace(line[end:]) == nil || bytes.HasPrefix(line[end:], []byte(" (core dumped)")), Crash)
	}
	last := before[len(before)-1]
	return pick(after && (last >= '0' && last <= '9' || last == ']' || last == ':'), Crash)
}

// goPanic is a Go panic at the start of a line; Go's test timeout is a
// panic too, and says it timed out.
func goPanic(line []byte, at int) Class {
	if at != 0 {
		return None
	}
	if bytes.Contains(line, []byte("test timed out")) {
		return Timeout
	}
	return Crash
}

// fatalError is the Go runtime's "fatal error: all goroutines are asleep"
// at the start of a line; a compiler's "x.c:1:10: fatal error: y.h: No
// such file" is a failure.
func fatalError(line []byte, at int) Class {
	if at == 0 {
		return Crash
	}
	return Failure
}

// assertionFailed is assert(3)'s "prog: x.c:5: main: Assertion `0'
// failed.", the BSD "Assertion failed: (x), function f, file x.c", or
// Criterion's "x.c:7: Assertion Failed".
func assertionFailed(line []byte, at int) Class {
	rest := line[at:]
	return pick(bytes.Contains(rest, []byte(" failed")) || bytes.Contains(rest, []byte(" Failed")), Crash)
}

// tapNotOK is TAP's "not ok 3 - name" at the start of a line (indented
// for a subtest); "# TODO" marks a failure that was expected.
func tapNotOK(line []byte, at int) Class {
	if len(bytes.TrimLeft(line[:at], " \t")) != 0 || bytes.Contains(bytes.ToUpper(line[at:]), []byte("# TODO")) {
		return None
	}
	return Failure
}

// tapComment is TestMoreFailed opening a TAP comment ("#   Failed test",
// indented in a subtest), as a word: not "#   Failed (TODO) test", an
// expected failure, nor prove's "Failed tests:  2, 5" in its summary.
func tapComment(line []byte, at int) Class {
	end := at + len(TestMoreFailed)
	return pick(string(bytes.TrimSpace(line[:at])) == "#" && (end == len(line) || line[end] == ' '), Failure)
}

func atLineStart(line []byte, at int) Class {
	return pick(len(bytes.TrimLeft(line[:at], " \t")) == 0, Failure)
}

// countAfter: the phrase's count is above zero ("Unexpected Pass: 1").
func countAfter(line []byte, at int) Class {
	i := bytes.IndexByte(line[at:], ':')
	return pick(i >= 0 && countFollows(line, at+i), Failure)
}

func pick(ok bool, c Class) Class {
	if ok {
		return c
	}
	return None
}
