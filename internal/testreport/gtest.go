package testreport

import (
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FormatGTest is GoogleTest's console output, of a test program run
// directly: the program itself, or a `make test` that runs it.
const FormatGTest = "gtest"

var (
	// A line only GoogleTest prints: a program's start, a test's result
	// with its time (cmocka prints "[ RUN      ] t" and "[       OK ] t" too,
	// without a time, and "Running 4 test(s).").
	gtestAnchorRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\[=+\] Running \d+ tests? from \d+ test |^\[ +(?:OK|FAILED) +\] \S+ \(\d+ ms\)\r?$`)
	})
	// "[ RUN      ] Math.Adds"
	gtestRunRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[ RUN      \] (\S+)$`)
	})
	// "[       OK ] Math.Adds (0 ms)", "[  FAILED  ] Math.Fails (0 ms)",
	// "[  SKIPPED ] Math.Skipped (0 ms)"; a parameterised test names its
	// parameter: "[  FAILED  ] P/Sq.Even/1, where GetParam() = 3 (0 ms)".
	// The list after the summary ("[  FAILED  ] Math.Fails") has no time.
	gtestResultRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[ *(OK|FAILED|SKIPPED) *\] (\S+?)(?:, where .*)? \((\d+) ms\)$`)
	})
	// "[==========] Running 3 tests from 1 test suite." (before 1.10:
	// "test case"), and the end: "[==========] 3 tests from 1 test suite ran. (0 ms total)".
	gtestStartRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[=+\] Running (\d+) tests? from \d+ test (?:suites?|cases?)\.`)
	})
	gtestEndRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[=+\] (\d+) tests? from \d+ test (?:suites?|cases?) ran\.`)
	})
	// "[  PASSED  ] 2 tests.", "[  FAILED  ] 1 test, listed below:",
	// "[  SKIPPED ] 1 test, listed below:"
	gtestTallyRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[ *(PASSED|FAILED|SKIPPED) *\] (\d+) tests?(?:\.|, listed below:)$`)
	})
	// "math_test.cc:9: Failure", "unknown file: Failure" (an exception),
	// "math_test.cc:12: Skipped"
	gtestSiteRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.+?)(?::(\d+))?: (Failure|Skipped)$`)
	})
)

// gtestParser reads GoogleTest's console output. A test is started by its
// "[ RUN      ]" line and finished by its "[       OK ]", "[  FAILED  ]" or
// "[  SKIPPED ]" line; the lines between are its output, where a failed
// assertion starts with its site ("x_test.cc:12: Failure"). A program
// ends with "[==========] N tests from M test suites ran." and its tally.
// A program whose output ends without that line was cut short: a test
// started and never finished is the one that ended it, crashed when a line
// after it says the program died (the shell's "Segmentation fault", make's
// "Error 139", a sanitizer's report), errored otherwise (exit(0) in a
// test, or a crash whose report went elsewhere). Several programs may
// follow each other (`make test` running two test binaries).
type gtestParser struct {
	rep     *Report
	running int // index of the case started and not finished; -1 for none
	out     strings.Builder
	crash   string // what a line after the running test said of its end
	report  bool   // reading a sanitizer's report: its first project frame is the site
	started bool   // a program's "Running N tests" came
	ended   bool   // and its end line
}

func parseGTest(r io.Reader) (*Report, error) {
	p := &gtestParser{rep: &Report{Format: FormatGTest}, running: -1}
	if err := lines(r, p.line); err != nil {
		return nil, err
	}
	p.endProgram()
	return p.rep, nil
}

func (p *gtestParser) line(l string) {
	if gtestStartRE().MatchString(l) {
		p.endProgram()
		p.started, p.ended = true, false
		return
	}
	if m := gtestEndRE().FindStringSubmatch(l); m != nil {
		p.finishRunning(Errored, "its result line never came")
		p.ended = true
		ts := p.rep.summary()
		addTally(&ts.Total, tallyCount(m[1]))
		addTally(&ts.Failed, 0) // the tally lines name failed and skipped tests only when there are
		addTally(&ts.Skipped, 0)
		ts.addLine(l)
		return
	}
	if m := gtestRunRE().FindStringSubmatch(l); m != nil {
		p.finishRunning(Errored, "another test started before its result")
		p.running = len(p.rep.Cases)
		p.rep.Cases = append(p.rep.Cases, Case{Suite: FormatGTest, Name: m[1], Status: Errored})
		p.out.Reset()
		p.crash, p.report = "", false
		return
	}
	if m := gtestResultRE().FindStringSubmatch(l); m != nil {
		p.result(m)
		return
	}
	if p.ended {
		p.tally(l)
		return
	}
	if p.running >= 0 {
		p.output(l)
		return
	}
	if ev := crashEvidence(l); ev != "" && p.started {
		// Between tests: a global destructor, the environment's tear-down.
		p.crash = ev
	}
}

// output is a line of the running test's output.
func (p *gtestParser) output(l string) {
	c := &p.rep.Cases[p.running]
	if p.out.Len() < maxMessage {
		p.out.WriteString(l)
		p.out.WriteByte('\n')
	}
	if m := gtestSiteRE().FindStringSubmatch(l); m != nil && c.File == "" && m[2] != "" {
		c.File = m[1]
		c.Line, _ = strconv.Atoi(m[2])
	}
	if p.crash == "" {
		if ev := crashEvidence(l); ev != "" {
			p.crash, p.report = ev, isSanitizerReport(l)
		}
		return
	}
	if p.report {
		if fn, file, ln, ok := sanitizerFrame(l); ok {
			c.File, c.Line = file, ln
			p.crash += " in " + fn + " at " + filepath.Base(file) + ":" + strconv.Itoa(ln)
			p.report = false
		}
	}
}

// result records a test's result line.
func (p *gtestParser) result(m []string) {
	i := p.running
	if i < 0 || p.rep.Cases[i].Name != m[2] {
		// A result without its start (a log that begins mid-run).
		p.finishRunning(Errored, "another test's result came before its own")
		i = len(p.rep.Cases)
		p.rep.Cases = append(p.rep.Cases, Case{Suite: FormatGTest, Name: m[2]})
		p.out.Reset()
	}
	c := &p.rep.Cases[i]
	ms := tallyCount(m[3])
	c.Duration = time.Duration(ms) * time.Millisecond
	switch m[1] {
	case "OK":
		c.Status, c.File, c.Line = Passed, "", 0
	case "FAILED":
		c.Status = Failed
		c.Message = bound(strings.TrimSpace(p.out.String()))
	case "SKIPPED":
		// "math_test.cc:12: Skipped" and the reason under it.
		out := strings.TrimSpace(p.out.String())
		if site, why, ok := strings.Cut(out, "\n"); ok && gtestSiteRE().MatchString(site) {
			out = why
		}
		c.Status, c.Message = Skipped, bound(out)
	}
	p.running, p.crash = -1, ""
	p.out.Reset()
}

// tally reads the lines after a program's end line.
func (p *gtestParser) tally(l string) {
	ts := p.rep.summary()
	if m := gtestTallyRE().FindStringSubmatch(l); m != nil {
		n := tallyCount(m[2])
		switch m[1] {
		case "PASSED":
			addTally(&ts.Passed, n)
		case "FAILED":
			addTally(&ts.Failed, n)
		case "SKIPPED":
			addTally(&ts.Skipped, n)
		}
		ts.addLine(l)
		return
	}
	if t := strings.TrimSpace(l); strings.HasSuffix(t, " FAILED TEST") || strings.HasSuffix(t, " FAILED TESTS") {
		ts.Verdict = t
		ts.addLine(l)
	}
}

// finishRunning ends the running test without its result line: st and why
// unless a line after it said the program died.
func (p *gtestParser) finishRunning(st Status, why string) {
	if p.running < 0 {
		return
	}
	c := &p.rep.Cases[p.running]
	c.Status, c.Message = st, "the test did not finish: "+why
	if p.crash != "" {
		c.Status, c.Message = Crashed, p.crash
	}
	if out := strings.TrimSpace(p.out.String()); out != "" {
		c.Message += "\n" + out
	}
	c.Message = bound(c.Message)
	p.running = -1
	p.out.Reset()
}

// endProgram ends a program's output: one without its end line was cut short.
func (p *gtestParser) endProgram() {
	if p.ended || !p.started && p.running < 0 {
		p.started, p.ended = false, false
		return
	}
	how := "the output ended before GoogleTest's summary"
	if p.crash != "" {
		how = p.crash + ", before GoogleTest's summary"
	}
	test := ""
	if p.running >= 0 {
		test = p.rep.Cases[p.running].Name
		p.finishRunning(Errored, "the program's output ended after its start, without its result or GoogleTest's summary (exit(0) in the test, or a crash)")
	} else if p.crash != "" {
		p.rep.crashSeen = true
	}
	p.rep.cutShort(FormatGTest, test, how)
	p.started, p.ended, p.crash = false, false, ""
}
