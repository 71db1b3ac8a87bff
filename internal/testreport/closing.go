package testreport

import (
	"strings"
	"unicode"
)

// A project's own test runner (a test program with no framework triage
// knows) passes under CTest or meson on exit 0, and often prints a closing
// count line of its own: "ran 42 checks, 0 failures", "All 17 tests OK".
// One that exits 0 before printing it (exit(0) in a test, a library
// calling exit) looks like a pass. What the last passing run of each test
// program ended with is kept (Closings), and the next run is held to it
// (HoldToClosings).

// Closing is what a test program's last passing run ended with.
type Closing struct {
	Shape string `json:"shape"` // its count line, numbers as N (ClosingShape)
	Lines int    `json:"lines"` // the non-blank lines of its output
}

// Closings maps a test (ClosingKey) to its last passing run's Closing.
type Closings map[string]Closing

// maxClosing bounds the closing line kept of one test's output.
const maxClosing = 300

// ClosingKey names a test in Closings.
func ClosingKey(c Case) string { return c.Suite + "\x00" + c.Name }

// ClosingShape is a closing line with its numbers as "N", so that "ran 42
// checks" and "ran 43 checks" have one shape.
func ClosingShape(line string) string {
	var b strings.Builder
	inNum := false
	for _, r := range strings.TrimSpace(line) {
		if unicode.IsDigit(r) {
			if !inNum {
				b.WriteByte('N')
			}
			inNum = true
			continue
		}
		inNum = false
		b.WriteRune(r)
	}
	return b.String()
}

// countWords are the words a count line holds beside a number.
var countWords = []string{"pass", "ok", "success", "succeed", "test", "check", "case", "assert", "fail", "error", "ran", "run", "done", "complete"}

// IsCountLine reports a line that reads as a runner's closing count: a
// number and a word such as "passed", "tests", "failures", "OK".
func IsCountLine(line string) bool {
	if !strings.ContainsFunc(line, unicode.IsDigit) {
		return false
	}
	low := strings.ToLower(line)
	for _, w := range countWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// Closings returns what the report's passed tests ended with, where their
// output ended with a count line.
func (r *Report) Closings() Closings {
	out := Closings{}
	for _, c := range r.Cases {
		if c.Status == Passed && c.OutputLines > 0 && IsCountLine(c.Closing) {
			out[ClosingKey(c)] = Closing{Shape: ClosingShape(c.Closing), Lines: c.OutputLines}
		}
	}
	return out
}

// HoldToClosings marks cut short each passed test whose output now ends
// short of its last passing run's: fewer lines, and not the count line that
// run ended with. Output that ends with that count line, or that is as long
// as before (the program's closing line changed with it), passes. It
// returns how many tests it marked.
func (r *Report) HoldToClosings(prev Closings) int {
	n := 0
	for i := range r.Cases {
		c := &r.Cases[i]
		was, ok := prev[ClosingKey(*c)]
		if c.Status != Passed || !ok || c.OutputLines == 0 || c.OutputLines >= was.Lines || ClosingShape(c.Closing) == was.Shape {
			continue
		}
		how := "exit 0 before the closing line its last passing run printed (\"" + was.Shape + "\"; numbers as N)"
		c.Status, c.Message = Errored, "the test program ended early: "+how
		r.cutShort(c.Suite, c.Name, how)
		n++
	}
	if n > 0 {
		r.finish()
	}
	return n
}
