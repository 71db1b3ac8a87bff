package testreport

import (
	"bufio"
	"io"
	"os"
	"regexp"
	"strings"
)

// A test framework names a test case in its output only when the case
// reports something (Catch2, doctest): a case that hangs, or that a
// sanitizer kills, goes unnamed, and the runner's test (CTest's
// test_bits) is all an answer can say. The stack still has a frame in the
// test file, inside the case's body; CaseAt reads the source to name it.

// maxCaseSource bounds what CaseAt reads of one source file.
const maxCaseSource = 4 << 20

// caseMacros are the test-definition macros CaseAt knows, each with how to
// name its case from the submatches. Sections within a case (Catch2's
// SECTION, doctest's SUBCASE) are not cases: their braces only nest.
var caseMacros = []struct {
	re   *regexp.Regexp
	name func(m []string) string
}{
	// Catch2 and doctest: the first string literal among the arguments
	// (TEST_CASE_METHOD(F, "name"), TEST_CASE_FIXTURE(F, "name")).
	{regexp.MustCompile(`^\s*(?:TEST_CASE|TEST_CASE_METHOD|TEST_CASE_FIXTURE|TEMPLATE_TEST_CASE|TEST_CASE_TEMPLATE)\s*\([^"]*"((?:[^"\\]|\\.)*)"`),
		func(m []string) string { return m[1] }},
	// Both frameworks name a scenario's case "Scenario: name".
	{regexp.MustCompile(`^\s*SCENARIO\s*\(\s*"((?:[^"\\]|\\.)*)"`),
		func(m []string) string { return "Scenario: " + m[1] }},
	// GoogleTest: Suite.Name, as it prints them.
	{regexp.MustCompile(`^\s*(?:TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)`),
		func(m []string) string { return m[1] + "." + m[2] }},
	{regexp.MustCompile(`^\s*BOOST_(?:AUTO_TEST_CASE|FIXTURE_TEST_CASE|DATA_TEST_CASE|AUTO_TEST_CASE_TEMPLATE)\s*\(\s*(\w+)`),
		func(m []string) string { return m[1] }},
	{regexp.MustCompile(`^\s*START_TEST\s*\(\s*(\w+)\s*\)`), // Check
		func(m []string) string { return m[1] }},
	// Criterion: Test(suite, name), named without its suite as the
	// other C frameworks' tests are.
	{regexp.MustCompile(`^\s*(?:Test|ParameterizedTest|Theory)\s*\(\s*\w+\s*,\s*(\w+)`),
		func(m []string) string { return m[1] }},
}

// CaseAt names the test case whose body holds line (1-based) of the
// source file at path: the nearest test-definition macro at or above the
// line whose braces, counted from the macro's line, have not closed before
// it. ok is false when the file cannot be read, the line lies outside
// every case, or it is past the first maxCaseSource bytes. A macro inside
// a block comment that spans lines may be missed.
func CaseAt(path string, line int) (name string, ok bool) {
	if line <= 0 || path == "" {
		return "", false
	}
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	return caseAt(io.LimitReader(f, maxCaseSource), line)
}

// caseAt is CaseAt over a reader.
func caseAt(r io.Reader, line int) (string, bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var st codeState
	cur, depth, opened, inCase := "", 0, false, false
	for n := 1; sc.Scan(); n++ {
		code := st.strip(sc.Text())
		if name, found := macroCase(code); found {
			cur, depth, opened, inCase = name, 0, false, true
		}
		if n == line {
			// The frame's own line counts as inside, its closing brace too.
			return cur, inCase
		}
		if !inCase {
			continue
		}
		opens, closes := braces(code)
		depth += opens - closes
		opened = opened || opens > 0
		if opened && depth <= 0 {
			cur, inCase = "", false
		}
	}
	return "", false // the file ends (or its bound) before the line
}

// macroCase names the case a line's test-definition macro defines.
func macroCase(code string) (string, bool) {
	for _, m := range caseMacros {
		if sm := m.re.FindStringSubmatch(code); sm != nil {
			return m.name(sm), true
		}
	}
	return "", false
}

// codeState carries a block comment across lines.
type codeState struct{ inBlock bool }

// strip drops a line's comments, keeping its string literals.
func (s *codeState) strip(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case s.inBlock:
			if c == '*' && i+1 < len(line) && line[i+1] == '/' {
				s.inBlock = false
				i++
			}
		case c == '/' && i+1 < len(line) && line[i+1] == '/':
			return b.String()
		case c == '/' && i+1 < len(line) && line[i+1] == '*':
			s.inBlock = true
			i++
		case c == '"' || c == '\'':
			j := literalEnd(line, i)
			b.WriteString(line[i:j])
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// literalEnd is the index past the string or character literal that
// starts at i (the line's end when it does not close there).
func literalEnd(line string, i int) int {
	q := line[i]
	for j := i + 1; j < len(line); j++ {
		switch line[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return len(line)
}

// braces counts a comment-free line's braces outside its literals.
func braces(code string) (opens, closes int) {
	for i := 0; i < len(code); i++ {
		switch code[i] {
		case '"', '\'':
			i = literalEnd(code, i) - 1
		case '{':
			opens++
		case '}':
			closes++
		}
	}
	return opens, closes
}

// maxCaseFrames bounds the frames of a sanitizer's stack stackCase reads.
const maxCaseFrames = 32

// stackCase reads a sanitizer report's first stack past the frame the
// reader takes as the site (the library's popcount), for a frame in a test
// file inside a test case (CaseAt): the case that was running, which a
// framework that names a case only when it reports a failure never named.
type stackCase struct {
	name   string // the case found
	frames int    // the frames read
	done   bool   // found, the first stack ended, or the bound reached
}

// feed reads one line of the report after its first.
func (s *stackCase) feed(line string) {
	if s.done {
		return
	}
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "#") {
		s.done = s.frames > 0 // the first stack ended
		return
	}
	if s.frames++; s.frames > maxCaseFrames {
		s.done = true
		return
	}
	if _, file, ln, ok := sanitizerFrame(t); ok {
		s.name, s.done = CaseAt(file, ln)
	}
}

// nameCase puts the case the stack ran in before c's message, "popcount
// counts set bits: AddressSanitizer: …", unless the framework named one.
func (c *Case) nameCase(s *stackCase) {
	if s == nil || s.name == "" || c.within != "" || strings.HasPrefix(c.Message, s.name) {
		return
	}
	c.within = s.name
	c.Message = bound(s.name + ": " + c.Message)
}
