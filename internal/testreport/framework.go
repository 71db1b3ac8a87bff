package testreport

import (
	"bytes"
	"regexp"
	"sync"
)

// A test program that runs a test framework of its own (Unity, GoogleTest,
// Catch2) under a runner that judges only its exit status (CTest) passes
// when it exits 0 halfway through: exit(0) in a test, a library calling
// exit. Each of these frameworks prints a summary when it finishes, so
// output that shows the framework's test lines but not its summary was cut
// short. frameworkWatch reads one test program's output for that.

// framework is how one test framework's output starts and ends.
type framework struct {
	name           string
	start, summary func() *regexp.Regexp
}

var frameworks = []framework{
	// "tests/parse_number.c:72:parse_number_should_parse_zero:PASS" …
	// "19 Tests 0 Failures 0 Ignored"
	{"Unity",
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[^\s:][^:]*:\d+:\w+:(?:PASS|FAIL|IGNORE)\b`) }),
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+ Tests \d+ Failures \d+ Ignored`) })},
	// "[==========] Running 3 tests from 1 test suite." …
	// "[==========] 3 tests from 1 test suite ran. (0 ms total)"
	{"GoogleTest",
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[=+\] Running \d+ tests? from`) }),
		sync.OnceValue(func() *regexp.Regexp {
			return regexp.MustCompile(`^\[=+\] \d+ tests? from \d+ test (?:suites?|cases?) ran`)
		})},
	// Catch2 v3: "Randomness seeded to: 1234"; v2 (whose passing run
	// prints nothing before its summary): the banner before its first
	// report, "t is a Catch v2.13.10 host application." …
	// "All tests passed (3 assertions in 2 test cases)", "test cases: 2 | 1 passed | 1 failed", "No tests ran"
	{"Catch2",
		sync.OnceValue(func() *regexp.Regexp {
			return regexp.MustCompile(`^(?:Randomness seeded to: \d+|\S.* is a Catch2? v\d+\.\d+\.\d+ host application\.$)`)
		}),
		sync.OnceValue(func() *regexp.Regexp {
			return regexp.MustCompile(`^(?:All tests passed \(|test cases:\s+\d+ \||No tests ran$)`)
		})},
	// `[doctest] doctest version is "2.4.9"` … "[doctest] Status: SUCCESS!"
	{"doctest",
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[doctest\] doctest version is "`) }),
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[doctest\] Status: (?:SUCCESS|FAILURE)!`) })},
	// TAP ends with its plan's count met, which a line cannot check. A
	// plan first ("1..4", then the results) is taken as finished at its
	// first result: only a program that ends between its plan and its
	// first result is caught. The TAP reader (tap.go) counts the results
	// when the program's output is read whole.
	{"TAP",
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^1\.\.[1-9]\d*\s*$`) }),
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:not )?ok\b`) })},
	// A plan last (Test::More's done_testing()): "ok 1 - loads" … "1..4".
	{"TAP",
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:not )?ok 1(?:\s|$)`) }),
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^1\.\.\d+\s*$`) })},
	// "Running 4 test cases..." … the report (coloured on a pipe too):
	// "*** No errors detected", `*** 1 failure is detected in the test
	// module "m"`, `Test module "m" has passed with:`; or the log's
	// `Leaving test module "m"` (--log_level=test_suite).
	{"Boost.Test",
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Running \d+ test cases?\.\.\.`) }),
		sync.OnceValue(func() *regexp.Regexp {
			return regexp.MustCompile(`^(?:\x1b\[[0-9;]*m)*(?:\*\*\* |Test module ".*" (?:has|was) |Leaving test module ")`)
		})},
	// "Running suite(s): Math" … "75%: Checks: 4, Failures: 1, Errors: 0"
	{"Check",
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Running suite\(s\):`) }),
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{1,3}%: Checks: \d+, Failures: \d+, Errors: \d+`) })},
	// "[==========] Running 4 test(s)." … "[==========] 4 test(s) run."
	{"cmocka",
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[=+\] (?:\S+: )?Running \d+ test\(s\)\.`) }),
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[=+\] (?:\S+: )?\d+ test\(s\) run\.`) })},
	// --verbose's "[----] Criterion v2.4.1", or a test's line (by default
	// a passing run prints nothing before its summary) …
	// "[====] Synthesis: Tested: 4 | Passing: 4 | Failing: 0 | Crashing: 0"
	{"Criterion",
		sync.OnceValue(func() *regexp.Regexp {
			return regexp.MustCompile(`^\[(?:----\] Criterion v|====\] Running \d+ tests? from |(?:RUN |PASS|FAIL|SKIP)\] [^\s:]+::)`)
		}),
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[====\] Synthesis: `) })},
	// "     CUnit - A unit testing framework for C - Version 2.1-3" …
	// "Run Summary:    Type  Total    Ran Passed Failed Inactive"
	{"CUnit",
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*CUnit - A unit testing framework for C`) }),
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-*Run Summary:`) })},
}

// frameworkWatch follows one program's output, line by line.
type frameworkWatch struct {
	carry     []byte
	started   int // index+1 of the framework whose test lines were seen
	summary   bool
	truncated bool   // the runner cut the output short itself: the end is unknown
	last      []byte // the last non-blank line (Case.Closing), at most maxClosing bytes
	lines     int    // non-blank lines seen (Case.OutputLines)
}

// ctestTruncated is the line CTest puts where it removed a test's output
// beyond its size threshold (1024 bytes for a passing test, by default).
const ctestTruncated = "[This part of the test output was removed since it exceeds the threshold"

// maxCarry bounds a partial line kept between writes; a longer line is
// looked at in pieces (neither marker is that long).
const maxCarry = 4 << 10

func (w *frameworkWatch) Write(p []byte) {
	w.carry = append(w.carry, p...)
	for {
		i := bytes.IndexByte(w.carry, '\n')
		if i < 0 {
			if len(w.carry) > maxCarry {
				w.carry = w.carry[:0]
			}
			return
		}
		w.line(bytes.TrimRight(w.carry[:i], "\r"))
		w.carry = w.carry[i+1:]
	}
}

func (w *frameworkWatch) line(l []byte) {
	if bytes.HasPrefix(l, []byte(ctestTruncated)) {
		w.truncated = true
		return
	}
	l = withESC(l) // Boost.Test's coloured summary, as CTest's JUnit file writes ESC
	if t := bytes.TrimSpace(l); len(t) > 0 {
		w.last = append(w.last[:0], t[:min(len(t), maxClosing)]...)
		w.lines++
	}
	if w.started == 0 {
		for i, f := range frameworks {
			if f.start().Match(l) {
				w.started = i + 1
				break
			}
		}
		return
	}
	if frameworks[w.started-1].summary().Match(l) {
		w.summary = true
	}
}

// cutShort names the framework whose run ended without its summary, or
// returns "" when the output shows no framework or a finished run.
func (w *frameworkWatch) cutShort() string {
	if len(w.carry) > 0 {
		w.line(w.carry)
		w.carry = nil
	}
	if w.started == 0 || w.summary || w.truncated {
		return ""
	}
	return frameworks[w.started-1].name
}

// AdoptCutShort takes from another report of the same run (CTest's JUnit
// file, which holds every test program's output) the tests it found cut
// short, marking the passed case of the same name errored. It returns how
// many it marked.
func (r *Report) AdoptCutShort(from *Report) int {
	n := 0
	for _, cs := range from.CutShort {
		for i := range r.Cases {
			c := &r.Cases[i]
			if c.Name != cs.Test || c.Status != Passed {
				continue
			}
			c.Status, c.overruled = Errored, true
			c.Message = "the test program ended early: " + cs.How
			r.CutShort = append(r.CutShort, CutShort{Suite: c.Suite, Test: c.Name, How: cs.How})
			r.Totals.Passed--
			r.Totals.Errored++
			for j := range r.Suites {
				if r.Suites[j].Name == c.Suite {
					r.Suites[j].Errors++
				}
			}
			if r.Status == Passed || r.Status == NoTests {
				r.Status = Errored
			}
			n++
			break
		}
	}
	return n
}
