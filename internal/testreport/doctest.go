package testreport

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FormatDoctest is the console reporter's output of a doctest test
// program run directly.
const FormatDoctest = "doctest"

var (
	// Every line of doctest's own starts "[doctest] ".
	doctestAnchorRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\[doctest\] (?:doctest version is "|test cases: |Status: )`)
	})
	// "tests.cpp:14: ERROR: CHECK( add(2, 2) == 5 ) is NOT correct!",
	// "tests.cpp:25: FATAL ERROR: test case CRASHED: SIGSEGV - Segmentation violation signal",
	// "tests.cpp:34: ERROR: test case THREW exception: boom", "tests.cpp:9: SUCCESS: …" (-s)
	doctestSiteRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.+?):(\d+): (ERROR|FATAL ERROR|SUCCESS|WARNING|MESSAGE): (.*)$`)
	})
	// "[doctest] test cases: 4 | 2 passed | 2 failed | 5 skipped" (the
	// numbers padded to line up with the assertions' line)
	doctestTallyRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[doctest\] test cases: *(\d+) \| *(\d+) passed \| *(\d+) failed \| *(\d+) skipped$`)
	})
	// "0.000113 s: fails an assertion" (-d)
	doctestDurationRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\d+\.\d+) s: (.+)$`)
	})
)

// doctestParser reads doctest's console reporter. doctest names a test
// case only when it reports something: after a line of "=", the test
// case's file:line, "TEST SUITE: s" when it has one, "TEST CASE:  name"
// and its subcases indented, then its failed assertions
// ("file:line: ERROR: CHECK( … ) is NOT correct!" and the values), or
// each assertion under -s; -d names every test case with its time. A
// signal is reported as the test case's "FATAL ERROR: test case CRASHED:
// SIGSEGV - …" before the summary, and the program then dies. A run starts
// with "[doctest] doctest version is" and ends with "[doctest] Status:
// SUCCESS!" or "FAILURE!"; one without was cut short (exit(0) in a test).
type doctestParser struct {
	run     *frameworkRun
	suite   string // the header's TEST SUITE, FormatDoctest when none
	current string // the header's TEST CASE
	inHead  bool   // after the header's TEST CASE line: its subcases
	subcase string

	failing *Case // the case whose assertion's values are being read
	detail  strings.Builder
}

func parseDoctest(r io.Reader) (*Report, error) {
	p := &doctestParser{run: newFrameworkRun(FormatDoctest, "doctest"), suite: FormatDoctest}
	p.run.quietWhy = "doctest names a test case only when it reports something (-s names each one with an assertion, -d every one)"
	if err := lines(r, p.line); err != nil {
		return nil, err
	}
	p.endDetail()
	return p.run.done(), nil
}

func (p *doctestParser) line(l string) {
	if p.failing != nil {
		if strings.HasPrefix(l, "  ") {
			p.detail.WriteString(strings.TrimSpace(l))
			p.detail.WriteByte('\n')
			return
		}
		p.endDetail()
	}
	if p.inHead {
		if strings.HasPrefix(l, "  ") {
			if p.subcase != "" {
				p.subcase += " / "
			}
			p.subcase += strings.TrimSpace(l)
			return
		}
		p.inHead = false
	}
	switch {
	case strings.HasPrefix(l, `[doctest] doctest version is "`):
		p.run.begin("")
		p.current = ""
	case isRuleOf(l, '='):
		p.current, p.suite, p.subcase = "", FormatDoctest, ""
	case strings.HasPrefix(l, "TEST SUITE: "):
		p.suite = strings.TrimSpace(strings.TrimPrefix(l, "TEST SUITE: "))
	case strings.HasPrefix(l, "TEST CASE:  "):
		p.current = strings.TrimSpace(strings.TrimPrefix(l, "TEST CASE:  "))
		p.inHead, p.subcase = true, ""
		p.run.ensure()
	case strings.HasPrefix(l, "[doctest] "):
		p.summaryLine(l)
	default:
		if m := doctestSiteRE().FindStringSubmatch(l); m != nil {
			p.assertion(m)
		} else if m := doctestDurationRE().FindStringSubmatch(l); m != nil && m[2] == p.current {
			c := p.caseOf(Passed)
			secs, _ := strconv.ParseFloat(m[1], 64)
			c.Duration = time.Duration(secs * float64(time.Second))
		}
	}
}

// caseOf is the current test case's case, recorded with st when new.
func (p *doctestParser) caseOf(st Status) *Case {
	if c := p.run.lookup(p.suite, p.current); c != nil {
		return c
	}
	return p.run.result(p.suite, p.current, st)
}

// assertion records an assertion of the current test case.
func (p *doctestParser) assertion(m []string) {
	if p.current == "" {
		return
	}
	switch m[3] {
	case "SUCCESS":
		p.caseOf(Passed)
		return
	case "WARNING", "MESSAGE":
		return
	}
	c := p.caseOf(Failed)
	what := m[4]
	if sig, ok := strings.CutPrefix(what, "test case CRASHED: "); ok {
		c.Status, c.Message = Crashed, bound(sig)
	} else if c.Status != Crashed {
		c.Status = Failed
	}
	if c.File == "" {
		c.File = m[1]
		c.Line, _ = strconv.Atoi(m[2])
	}
	p.failing = c
	p.detail.Reset()
	if p.subcase != "" {
		p.detail.WriteString("in subcase " + p.subcase + ":\n")
	}
	p.detail.WriteString(what + "\n")
}

// endDetail ends an assertion's indented lines ("values: CHECK( 4 == 5 )").
func (p *doctestParser) endDetail() {
	c := p.failing
	if c == nil {
		return
	}
	p.failing = nil
	if c.Status == Crashed && c.Message != "" {
		return
	}
	d := strings.TrimSpace(p.detail.String())
	if c.Message != "" {
		d = c.Message + "\n" + d
	}
	c.Message = bound(d)
}

// summaryLine reads doctest's own lines at the end of a run.
func (p *doctestParser) summaryLine(l string) {
	if m := doctestTallyRE().FindStringSubmatch(l); m != nil {
		ts := p.run.rep.summary()
		total, passed, failed := tallyCount(m[1]), tallyCount(m[2]), tallyCount(m[3])
		skipped := tallyCount(m[4]) // doctest counts the test cases its filters left out as skipped
		addTally(&ts.Total, total)
		addTally(&ts.Passed, passed)
		addTally(&ts.Failed, failed)
		addTally(&ts.Skipped, skipped)
		ts.addLine(l)
		p.run.summarized(passed)
		return
	}
	switch {
	case strings.HasPrefix(l, "[doctest] assertions: "):
		p.run.rep.summary().addLine(l)
	case strings.HasPrefix(l, "[doctest] Status: "):
		ts := p.run.rep.summary()
		ts.addLine(l)
		if strings.Contains(l, "FAILURE") {
			ts.Verdict = "FAILURE"
		}
		if !p.run.summary {
			p.run.summarized(-1)
		}
	}
}
