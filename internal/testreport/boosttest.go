package testreport

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FormatBoostTest is the output of a Boost.Test program (its compiler-style
// log and plain report, the defaults).
const FormatBoostTest = "boost-test"

var (
	// "Running 4 test cases..."
	boostStartRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^Running (\d+) test cases?\.\.\.$`)
	})
	// `boost_t.cpp(8): Entering test case "add"`, `Leaving test suite "math"; testing time: 391us`,
	// `Entering test module "cfw"` (no position)
	boostUnitRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:(.+)\((\d+)\): )?(Entering|Leaving) test (module|suite|case) "(.*?)"(?:; testing time: (\d+)(us|ms))?`)
	})
	// `boost_t.cpp(11): error: in "math/fault": check … has failed [3 != 2]`,
	// `unknown location(0): fatal error: in "math/fault": signal: SIGABRT (application abort requested)`
	// (Boost before 1.59: `error in "fault": …`)
	boostErrorRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.+)\((\d+)\): (fatal error|error|warning):? in "(.*?)": (.*)$`)
	})
	// `boost_t.cpp(9): last checkpoint: "fault" test entry`
	boostCheckpointRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.+)\((\d+)\): last checkpoint\b`)
	})
	// `boost_x.cpp(15): Test case "outer/inner/off" is skipped because disabled`
	boostSkippedRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:(.+)\((\d+)\): )?Test (?:case|suite) "(.*)" is skipped because (.*)$`)
	})
	// The confirmation report: "*** No errors detected", `*** 1 failure is
	// detected in the test module "cfw"`, `*** Errors were detected in …`,
	// `*** The test module "m" was aborted; …`
	boostConfirmRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\*\*\* (?:No errors detected|\d+ failures? (?:is|are) detected|Errors were detected|The test \w+ ")`)
	})
	// The short report: `Test module "cfw" has failed with:`
	boostReportRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^Test module "(.*)" (?:has passed|has failed|was aborted|has timed out|was skipped)`)
	})
	// Its module's counts: "  3 test cases out of 4 passed"
	boostTallyRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^  (\d+) test cases? out of (\d+) (passed|passed with warnings|failed|timed-out|skipped|aborted)$`)
	})
	// `in the test module "cfw"`
	boostModuleRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`in the test module "(.*)"`)
	})
)

// boostParser reads a Boost.Test program's output. The log says "Running
// N test cases...", then each failed check, `FILE(LINE): error: in
// "SUITE/CASE": MESSAGE` (`fatal error:` for a BOOST_REQUIRE, an exception
// or a signal); at --log_level=test_suite also each test unit's `Entering
// test case "C"` and `Leaving test case "C"`. The report (standard error)
// ends the run: "*** No errors detected" or `*** N failures are detected
// in the test module "M"`, or with --report_level=short the module's
// counts.
//
// Boost.Test catches signals: `unknown location(0): fatal error: in
// "S/C": memory access violation at address: …` (SIGSEGV, which aborts the
// rest of the module's tests: how many passed is then not known from the
// default log) or `signal: SIGABRT (application abort requested)`, then the test's last checkpoint, `FILE(LINE): last
// checkpoint: …`, which gives the crashed case its FILE:LINE. exit() in a
// test ends the program before the report: cut short, naming the test
// whose "Entering test case" had no "Leaving" (test_suite log level).
//
// A case is named "CASE" in suite "SUITE" (a nested suite's path, "a/b";
// FormatBoostTest for a case at the top of the module).
type boostParser struct {
	f       *frameworkRun
	suites  []string // the suites entered (test_suite log level)
	planned int      // "Running N test cases..."
	last    int      // index of the case of the last error, for its checkpoint and continuation lines; -1 none
	more    bool     // the line after an error may continue its message
	report  bool     // in the short report's module counts
	aborted bool     // a fatal signal (SIGSEGV, SIGBUS, SIGILL) aborted the module's other tests
}

func parseBoostTest(r io.Reader) (*Report, error) {
	p := &boostParser{f: newFrameworkRun(FormatBoostTest, "Boost.Test"), last: -1}
	p.f.namedPassMeansAll = true
	p.f.quietWhy = "Boost.Test names only the failed tests unless run with --log_level=test_suite"
	if err := lines(r, p.line); err != nil {
		return nil, err
	}
	return p.f.done(), nil
}

func (p *boostParser) line(line string) {
	more := p.more
	p.more = false
	if m := boostStartRE().FindStringSubmatch(line); m != nil {
		p.f.begin("")
		p.planned, _ = strconv.Atoi(m[1])
		p.suites, p.last, p.report, p.aborted = nil, -1, false, false
		return
	}
	if m := boostUnitRE().FindStringSubmatch(line); m != nil {
		p.unit(m)
		return
	}
	if m := boostErrorRE().FindStringSubmatch(line); m != nil {
		p.failure(m)
		return
	}
	if m := boostCheckpointRE().FindStringSubmatch(line); m != nil {
		if c := p.f.at(p.last); c != nil && c.File == "" {
			c.File = m[1]
			c.Line, _ = strconv.Atoi(m[2])
		}
		return
	}
	if m := boostSkippedRE().FindStringSubmatch(line); m != nil {
		suite, name := boostName(m[3])
		c := p.f.result(suite, name, Skipped)
		c.Message = bound(m[4])
		return
	}
	if p.summaryLine(line) {
		return
	}
	switch {
	case strings.HasPrefix(line, "Test setup error: "), strings.HasPrefix(line, "Boost.Test framework internal error: "):
		p.f.rep.RunnerErrors = addDistinct(p.f.rep.RunnerErrors, line)
	case p.f.died(line):
	case more && p.last >= 0 && strings.TrimSpace(line) != "" && line != "Test is aborted":
		// "Mismatch at position 1: 2 != 3" under a collections check.
		c := p.f.at(p.last)
		c.Message = bound(c.Message + "\n" + strings.TrimSpace(line))
		p.more = true
	}
}

// unit reads a test unit's Entering or Leaving line.
func (p *boostParser) unit(m []string) {
	kind, name := m[4], m[5]
	entering := m[3] == "Entering"
	switch kind {
	case "module":
		if entering {
			p.f.ensure()
			p.f.suite = name
		} else {
			p.summarized()
		}
	case "suite":
		if entering {
			p.suites = append(p.suites, name)
		} else if n := len(p.suites); n > 0 {
			p.suites = p.suites[:n-1]
		}
	case "case":
		suite := strings.Join(p.suites, "/")
		if suite == "" {
			suite = FormatBoostTest
		}
		if entering {
			p.f.start(suite, name)
			return
		}
		c := p.f.lookup(suite, name)
		if c == nil {
			c = p.f.result(suite, name, Passed)
		} else {
			p.f.result(suite, name, "")
		}
		if c.File == "" && m[1] != "" {
			c.File = m[1]
			c.Line, _ = strconv.Atoi(m[2])
		}
		if n, err := strconv.Atoi(m[6]); err == nil {
			c.Duration = time.Duration(n) * time.Microsecond
			if m[7] == "ms" {
				c.Duration = time.Duration(n) * time.Millisecond
			}
		}
	}
}

// failure reads an error line: the case failed, or crashed on a signal.
func (p *boostParser) failure(m []string) {
	sev, msg := m[3], m[5]
	if sev == "warning" {
		return
	}
	suite, name := boostName(m[4])
	// The case stays running until its Leaving line (test_suite log
	// level); at the default log level this line is all there is of it.
	c := p.f.caseOf(suite, name)
	st := Failed
	switch {
	case sev == "fatal error" && strings.Contains(msg, "timeout while executing function"):
		// The test's timeout decorator (SIGALRM, or the monitor's own).
		st = Errored
		c.Kind = KindTimeout
	case sev == "fatal error" && (strings.HasPrefix(msg, "signal: ") || strings.HasPrefix(msg, "memory access violation")):
		st = Crashed
		p.aborted = p.aborted || boostFatalSignal(msg)
	}
	if c.Status != Crashed {
		c.Status = st
	}
	if c.Message == "" {
		c.Message = bound(msg)
		if m[1] != "unknown location" {
			c.File = m[1]
			c.Line, _ = strconv.Atoi(m[2])
		}
	} else {
		c.Message = bound(c.Message + "\n" + msg)
	}
	p.last, p.more = p.f.latest, true
}

// summaryLine reads the report's lines: the confirmation ("***") or the
// module's counts.
func (p *boostParser) summaryLine(line string) bool {
	if boostConfirmRE().MatchString(line) {
		ts := p.f.rep.summary()
		ts.addLine(line)
		if !strings.HasPrefix(line, "*** No errors") {
			ts.Verdict = "tests failed: " + strings.TrimPrefix(line, "*** ")
		} else if ts.Verdict == "" {
			ts.Verdict = line
		}
		if m := boostModuleRE().FindStringSubmatch(line); m != nil {
			p.f.suite = m[1]
		}
		p.summarized()
		return true
	}
	if m := boostReportRE().FindStringSubmatch(line); m != nil {
		ts := p.f.rep.summary()
		ts.addLine(line)
		if !strings.Contains(line, " has passed") {
			ts.Verdict = "tests failed: " + line
		}
		p.f.suite = m[1]
		p.report = true
		p.summarized()
		return true
	}
	if !p.report {
		return false
	}
	m := boostTallyRE().FindStringSubmatch(line)
	if m == nil {
		p.report = strings.HasPrefix(line, "  ") // a deeper (detailed) report's line ends the module's counts
		return p.report
	}
	n, _ := strconv.Atoi(m[1])
	total, _ := strconv.Atoi(m[2])
	ts := p.f.rep.summary()
	ts.addLine(line)
	ts.Total = total
	switch m[3] {
	case "passed", "passed with warnings":
		addTally(&ts.Passed, n)
		if !p.aborted {
			p.f.implied = ts.Passed
		}
	case "failed", "timed-out":
		addTally(&ts.Failed, n)
	case "skipped":
		addTally(&ts.Skipped, n)
	}
	return true
}

// summarized records the report: the passing tests the log did not name
// are the planned ones without a failure (the module's counts, when they
// come next, say how many passed), unless a crash may have stopped the
// run before the others.
func (p *boostParser) summarized() {
	implied, named := -1, len(p.f.rep.Cases)-p.f.first
	if !p.aborted && p.planned > 0 {
		implied = p.planned
		for _, c := range p.f.rep.Cases[p.f.first:] {
			if c.Status != Passed {
				implied--
			}
		}
	} else if p.aborted && !p.f.summary && named < p.planned {
		p.f.rep.Notes = append(p.f.rep.Notes, fmt.Sprintf("Boost.Test planned %d test cases and the output names %d: after a crash the others' results are not known", p.planned, named))
	}
	p.f.summarized(implied)
}

// boostFatalSignal says whether a signal's message is one Boost.Test
// counts a fatal system error (SIGSEGV, SIGBUS, SIGILL), which aborts the
// module's other tests; SIGABRT, SIGFPE and the like fail the test alone.
func boostFatalSignal(msg string) bool {
	if strings.HasPrefix(msg, "memory access violation") {
		return true
	}
	for _, w := range []string{"SIGSEGV", "SIGBUS", "SIGILL", "illegal ", "privileged ", "internal stack error", "co-processor error"} {
		if strings.HasPrefix(strings.TrimPrefix(msg, "signal: "), w) {
			return true
		}
	}
	return false
}

// boostName splits a test's full name, "outer/inner/case", into its suite
// path and name.
func boostName(full string) (suite, name string) {
	if i := strings.LastIndexByte(full, '/'); i >= 0 {
		return full[:i], full[i+1:]
	}
	return FormatBoostTest, full
}
