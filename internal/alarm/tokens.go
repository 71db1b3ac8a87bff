package alarm

// The table's words that are read as whole words (runs of letters, digits
// and '_'): capital ones that say a failure alone ("FAIL", "TIMEOUT",
// "SIGSEGV"), and words that say one only with a count above zero ("Fail:
// 5", "1 failed", "3 tests failed", "failures=2").

// capitals say a failure by themselves, unless a count of zero follows
// ("# FAIL:  0").
var capitals = map[string]Class{
	"FAIL": Failure, "FAILED": Failure, "FAILURE": Failure, "FAILURES": Failure,
	"ERROR": Failure, "XPASS": Failure, "UNEXPECTEDPASS": Failure,
	"TIMEOUT": Timeout,
	"CRASH":   Crash, "CRASHED": Crash,
	"SIGSEGV": Crash, "SIGABRT": Crash, "SIGBUS": Crash, "SIGILL": Crash,
	"SIGFPE": Crash, "SIGSYS": Crash, "SIGTRAP": Crash, "SIGIOT": Crash,
}

// counted say a failure with a count above zero before or after them, in
// any case ("Fail:  3", "1 Failures", "errors=2"); "Expected Fail: 1"
// (meson's expected failures) says none.
var counted = map[string]Class{
	"fail": Failure, "failed": Failure, "fails": Failure, "failure": Failure,
	"failures": Failure, "failing": Failure,
	"error": Failure, "errors": Failure, "errored": Failure,
	"crash": Crash, "crashed": Crash, "crashes": Crash,
	"timeout": Timeout, "timeouts": Timeout, "timedout": Timeout,
}

// capitalNames and countedNames hold each table word as a string of its
// own, so that a match names its word without allocating.
var capitalNames, countedNames = names(capitals), names(counted)

func names(m map[string]Class) map[string]string {
	out := make(map[string]string, len(m))
	for w := range m {
		out[w] = w
	}
	return out
}

// tokenClass is what the word line[i:j] says.
func tokenClass(line []byte, i, j int) (Class, string) {
	if j-i < 4 || j-i > 14 {
		return None, ""
	}
	w := line[i:j]
	if w[0] >= 'A' && w[0] <= 'Z' && w[1] >= 'A' && w[1] <= 'Z' {
		if c, ok := capitals[string(w)]; ok {
			if zeroFollows(line, j) {
				return None, ""
			}
			return c, capitalNames[string(w)]
		}
	}
	if !countWord[w[0]] {
		return None, ""
	}
	var low [14]byte
	for k, b := range w {
		if b >= 'A' && b <= 'Z' {
			b += 'a' - 'A'
		}
		low[k] = b
	}
	c, ok := counted[string(low[:len(w)])]
	if !ok || expectedBefore(line, i) || !countFollows(line, j) && !countBefore(line, i) {
		return None, ""
	}
	return c, countedNames[string(low[:len(w)])]
}

func isWordByte(b byte) bool { return wordByte[b] }

// countWord marks the first letters of the counted words.
var countWord = func() (t [256]bool) {
	for w := range counted {
		t[w[0]], t[w[0]-'a'+'A'] = true, true
	}
	return t
}()

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// countAt reads "[ \t]*[:=]?[ \t]*N" from i: N's value (capped) and
// whether a count was there. A number that runs into a word or a decimal
// point ("30s", "0.5") is no count.
func countAt(line []byte, i int) (n int, ok bool) {
	i = skipBlanks(line, i)
	if i < len(line) && (line[i] == ':' || line[i] == '=') {
		i = skipBlanks(line, i+1)
	}
	start := i
	for i < len(line) && isDigit(line[i]) {
		if n < 1<<20 {
			n = n*10 + int(line[i]-'0')
		}
		i++
	}
	if i == start || i < len(line) && (isWordByte(line[i]) || line[i] == '.' && i+1 < len(line) && isDigit(line[i+1])) {
		return 0, false
	}
	return n, true
}

func skipBlanks(line []byte, i int) int {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return i
}

// countFollows: a count above zero follows position i ("Fail: 5").
func countFollows(line []byte, i int) bool {
	n, ok := countAt(line, i)
	return ok && n > 0
}

// zeroFollows: a count of zero follows position i ("FAIL:  0").
func zeroFollows(line []byte, i int) bool {
	n, ok := countAt(line, i)
	return ok && n == 0
}

// countBefore: a count above zero ends just before the word at i, perhaps
// with "test"/"tests"/"test cases" between ("1 failed", "3 tests failed").
func countBefore(line []byte, i int) bool {
	k := i
	for range 3 {
		k = skipBlanksBack(line, k)
		end := k
		for k > 0 && isDigit(line[k-1]) {
			k--
		}
		if k < end {
			// "4/5 fail" is meson's progress, not a count of failures.
			return (k == 0 || !isWordByte(line[k-1]) && line[k-1] != '/') && nonZero(line[k:end])
		}
		for k > 0 && line[k-1] >= 'a' && line[k-1] <= 'z' {
			k--
		}
		switch string(line[k:end]) {
		case "test", "tests", "case", "cases":
		default:
			return false
		}
	}
	return false
}

func skipBlanksBack(line []byte, k int) int {
	for k > 0 && (line[k-1] == ' ' || line[k-1] == '\t') {
		k--
	}
	return k
}

func nonZero(digits []byte) bool {
	for _, d := range digits {
		if d != '0' {
			return true
		}
	}
	return false
}

// expectedBefore: the word at i follows "Expected"/"expected" (meson's
// "Expected Fail:", a failure that was expected).
func expectedBefore(line []byte, i int) bool {
	k := skipBlanksBack(line, i)
	for _, w := range []string{"Expected", "expected"} {
		if k >= len(w) && string(line[k-len(w):k]) == w {
			return true
		}
	}
	return false
}
