package testreport

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// FormatCheck is the output of a program run by the Check unit testing
// framework's srunner (libcheck).
const FormatCheck = "check"

var (
	// "Running suite(s): Math"
	checkStartRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^Running suite\(s\):\s*(.*)$`)
	})
	// "75%: Checks: 4, Failures: 1, Errors: 0"
	checkSummaryRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\d{1,3}%: Checks: (\d+), Failures: (\d+), Errors: (\d+)`)
	})
	// "check_t.c:9:F:Core:test_fault:0: Assertion 'x == 2' failed: …",
	// "check_t.c:7:E:Core:test_fault:0: (after this point) Received signal 11 (Segmentation fault)"
	checkResultRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.*?):(-?\d+):([PFE]):([^:]*):([^:]+):(-?\d+): ?(.*)$`)
	})
	// "Received signal 11 (Segmentation fault)"
	checkSignalRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`Received signal \d+ \(`)
	})
)

// parseCheck reads a Check program's output: "Running suite(s): S", the
// summary "N%: Checks: C, Failures: F, Errors: E", and a line per test
// (every test at CK_VERBOSE, the failed ones at CK_NORMAL),
// "FILE:LINE:R:TCASE:TEST:ITER: MESSAGE" with R P (passed), F (an
// assertion failed) or E (an error: a signal, a timeout, an early exit).
// Check prints the summary before the test lines, both once every test
// has run.
//
// By default (CK_FORK) each test runs in a child process: a crash is that
// test's E line, "(after this point) Received signal 11 (Segmentation
// fault)", after the last checkpoint's FILE:LINE, and the run goes on.
// exit(0) in a forked test is a pass to Check, and its line reads as one.
// Under CK_FORK=no the tests run in the program's process: a crash or an
// exit ends the program with "Running suite(s):" alone, which is cut short
// (the output never names the test that was running).
func parseCheck(r io.Reader) (*Report, error) {
	f := newFrameworkRun(FormatCheck, "Check")
	f.summaryFirst, f.namedPassMeansAll = true, true
	f.quietWhy = "Check prints only the failed tests unless its print mode is CK_VERBOSE (CK_VERBOSITY=verbose with CK_ENV)"
	err := lines(r, func(line string) {
		if m := checkStartRE().FindStringSubmatch(line); m != nil {
			f.begin(strings.TrimSpace(m[1]))
			return
		}
		if m := checkSummaryRE().FindStringSubmatch(line); m != nil {
			checks, _ := strconv.Atoi(m[1])
			fails, _ := strconv.Atoi(m[2])
			errs, _ := strconv.Atoi(m[3])
			ts := f.rep.summary()
			addTally(&ts.Total, checks)
			addTally(&ts.Passed, max(checks-fails-errs, 0))
			addTally(&ts.Failed, fails+errs)
			ts.addLine(line)
			f.summarized(max(checks-fails-errs, 0))
			return
		}
		if m := checkResultRE().FindStringSubmatch(line); m != nil {
			checkResult(f, m)
			return
		}
		f.died(line)
	})
	if err != nil {
		return nil, err
	}
	return f.done(), nil
}

// checkResult records one test's line.
func checkResult(f *frameworkRun, m []string) {
	if !f.open {
		f.begin("")
	}
	c := f.record(m[4], m[5], Passed)
	c.File = m[1]
	c.Line, _ = strconv.Atoi(m[2])
	msg := m[7]
	switch m[3] {
	case "P":
		return
	case "F":
		c.Status = Failed
	case "E":
		c.Status = Errored
		msg = strings.TrimPrefix(msg, "(after this point) ")
		switch {
		case checkSignalRE().MatchString(msg):
			c.Status = Crashed
		case strings.HasPrefix(msg, "Test timeout expired"):
			c.Kind = KindTimeout
		}
	}
	c.Message = bound(msg)
}
