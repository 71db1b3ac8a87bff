package testreport

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// FormatCUnit is the output of a program run by CUnit's basic interface
// (CU_basic_run_tests).
const FormatCUnit = "cunit"

var (
	// "     CUnit - A unit testing framework for C - Version 2.1-3"
	cunitBannerRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*CUnit - A unit testing framework for C\b`)
	})
	// "  Test: fault ...FAILED"
	cunitTestRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^  Test: (.+?) \.\.\.(.*)$`)
	})
	// "    1. cunit_t.c:7  - CU_ASSERT_EQUAL(x,2)"
	cunitFailureRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s+\d+\. (.+?):(\d+)\s+- (.*)$`)
	})
	// CU_BRM_NORMAL: "Suite math, Test fault had failures:"
	cunitHadFailuresRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^Suite (.+), Test (.+) had failures:$`)
	})
	// "Run Summary:    Type  Total    Ran Passed Failed Inactive" (CUnit
	// 2.1-2: "--Run Summary: Type      Total     Ran  Passed  Failed")
	cunitSummaryRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^-*Run Summary: +Type +Total +Ran`)
	})
	// "               tests      4      4      3      1        0"
	cunitRowRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(suites|tests|asserts)\s+(\d+)\s+(\d+)\s+(n/a|\d+)\s+(\d+)(?:\s+(n/a|\d+))?`)
	})
)

// cunitParser reads the output of CUnit's basic interface. In its verbose
// mode (CU_BRM_VERBOSE) "Suite: S" and, as each test starts, "  Test: T
// ..." on a line that the test's result, "passed" or "FAILED", ends once
// it returns, the failures numbered under it ("    1. FILE:LINE  -
// ASSERTION"); in its normal mode only "Suite S, Test T had failures:" and
// the failures. Then the "Run Summary:" table.
//
// CUnit runs the tests in its own process and catches no signal: a crash,
// abort() or exit() in a test ends the output after its "  Test: T ..."
// (verbose mode), which was cut short there; in normal mode the output
// never names the test that was running. A suite whose initialisation
// failed ("WARNING - Suite initialization failed for 'S'.") ran none of its
// tests: a runner error.
type cunitParser struct {
	f       *frameworkRun
	suite   string
	running string // the test whose "Test: T ..." line has no result yet
	last    int    // index of the case the failure lines belong to; -1 none
	table   bool   // in the summary table
}

func parseCUnit(r io.Reader) (*Report, error) {
	p := &cunitParser{f: newFrameworkRun(FormatCUnit, "CUnit"), suite: FormatCUnit, last: -1}
	p.f.namedPassMeansAll = true
	p.f.quietWhy = "CUnit's basic interface names only the failed tests unless its mode is CU_BRM_VERBOSE"
	if err := lines(r, p.line); err != nil {
		return nil, err
	}
	return p.f.done(), nil
}

func (p *cunitParser) line(line string) {
	switch {
	case cunitBannerRE().MatchString(line):
		p.f.begin("")
		p.suite, p.running, p.last, p.table = FormatCUnit, "", -1, false
		return
	case cunitSummaryRE().MatchString(line):
		p.table = true
		p.f.rep.summary().addLine(line)
		p.f.summarized(-1)
		return
	}
	if p.table {
		p.row(line)
		return
	}
	if s, ok := strings.CutPrefix(line, "Suite: "); ok {
		p.f.ensure()
		p.suite, p.running, p.last = strings.TrimSpace(s), "", -1
		return
	}
	if m := cunitTestRE().FindStringSubmatch(line); m != nil {
		p.running, p.last = m[1], -1
		p.f.start(p.suite, m[1])
		p.outcome(m[2])
		return
	}
	if m := cunitFailureRE().FindStringSubmatch(line); m != nil && p.last >= 0 {
		c := p.f.at(p.last)
		if c.File == "" {
			c.File = m[1]
			c.Line, _ = strconv.Atoi(m[2])
		}
		if len(c.Message) < maxMessage {
			c.Message = bound(strings.TrimPrefix(c.Message+"\n"+m[3], "\n"))
		}
		return
	}
	if m := cunitHadFailuresRE().FindStringSubmatch(line); m != nil {
		p.f.result(m[1], m[2], Failed)
		p.last = p.f.latest
		return
	}
	if w, ok := strings.CutPrefix(line, "WARNING - "); ok && strings.Contains(w, "failed for '") {
		p.f.rep.RunnerErrors = addDistinct(p.f.rep.RunnerErrors, strings.TrimSpace(w))
		return
	}
	if p.running != "" {
		// The running test's own output came between its "Test: T ..."
		// and its result, which ends the line that output ends.
		p.outcome(line)
		return
	}
	p.f.died(line)
}

// outcome reads what follows a test's "..." for its result.
func (p *cunitParser) outcome(s string) {
	var st Status
	switch {
	case strings.HasSuffix(s, "passed"):
		st = Passed
	case strings.HasSuffix(s, "FAILED"):
		st = Failed
	default:
		// "make: *** [Makefile:4: test] Segmentation fault" after the
		// "..." of the test it killed.
		p.f.died(s)
		return
	}
	p.f.result(p.suite, p.running, st)
	p.last = p.f.latest
	p.running = ""
}

// row reads a row of the summary table: the tests' counts (Ran is what
// ran; Inactive, tests set inactive, did not run) and a suite that failed
// its initialisation or clean-up.
func (p *cunitParser) row(line string) {
	m := cunitRowRE().FindStringSubmatch(line)
	if m == nil {
		if strings.HasPrefix(line, "Elapsed time") {
			p.f.rep.summary().addLine(line)
		}
		return
	}
	ts := p.f.rep.summary()
	ts.addLine(line)
	n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	switch m[1] {
	case "tests":
		addTally(&ts.Total, n(3))
		addTally(&ts.Passed, n(4))
		addTally(&ts.Failed, n(5))
		addTally(&ts.Skipped, n(6))
		p.f.implied = n(4)
	case "suites":
		if n(5) > 0 {
			ts.Verdict = "suites failed"
		}
	}
}
