package testreport

import (
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

var (
	// "2/3 Test #2: crash ............................***Exception: SegFault  0.00 sec"
	ctestCaseRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*\d+/\d+ Test\s+#\d+: (\S+) \.*\s*(\*\*\*)?([^*]*?)\s+([\d.]+) sec`)
	})
	// "    Start 2: crash"
	ctestStartRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*Start\s+\d+: (\S+)$`)
	})
	// "33% tests passed, 2 tests failed out of 3"
	ctestSummaryRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\d+)% tests passed, (\d+) tests? failed out of (\d+)`)
	})
)

// parseCTest reads CTest's text output. A run is complete only with CTest's
// own "N% tests passed" summary; a test that printed "Start" and never its
// result line, or a run that ends without the summary (ctest killed, the
// log cut), was cut short.
func parseCTest(r io.Reader) (*Report, error) {
	rep := &Report{Format: FormatCTest}
	var started []string // tests started without a result line, in order
	summary := false
	err := lines(r, func(line string) {
		if m := ctestStartRE().FindStringSubmatch(line); m != nil {
			started = append(started, m[1])
			return
		}
		if m := ctestCaseRE().FindStringSubmatch(line); m != nil {
			if i := slices.Index(started, m[1]); i >= 0 {
				started = slices.Delete(started, i, i+1)
			}
			c := Case{Suite: "ctest", Name: m[1], Status: ctestStatus(m[3])}
			if secs, err := strconv.ParseFloat(m[4], 64); err == nil {
				c.Duration = time.Duration(secs * float64(time.Second))
			}
			if c.Status != Passed {
				c.Message = strings.TrimSpace(m[3])
			}
			rep.Cases = append(rep.Cases, c)
			return
		}
		if m := ctestSummaryRE().FindStringSubmatch(line); m != nil {
			summary = true
			ts := rep.summary()
			failed, _ := strconv.Atoi(m[2])
			total, _ := strconv.Atoi(m[3])
			addTally(&ts.Failed, failed)
			addTally(&ts.Total, total)
			addTally(&ts.Passed, total-failed)
			ts.addLine(line)
			if failed > 0 {
				ts.Verdict = "tests failed"
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if !summary {
		for _, name := range started {
			rep.Cases = append(rep.Cases, Case{Suite: "ctest", Name: name, Status: Errored,
				Message: "ctest ended before the test finished (the output ended)"})
			rep.cutShort("ctest", name, "the output ended")
		}
		if len(started) == 0 && len(rep.Cases) > 0 {
			rep.cutShort("ctest", "", "the output ended before ctest's summary")
		}
	}
	return rep, nil
}

// ctestStatus maps CTest's result words. "Exception" covers the signals
// (SegFault, Illegal, Numerical, Subprocess aborted, Child killed).
func ctestStatus(s string) Status {
	s = strings.TrimSpace(s)
	switch {
	case s == "Passed":
		return Passed
	case strings.HasPrefix(s, "Exception"), strings.Contains(s, "aborted"), strings.Contains(s, "killed"):
		return Crashed
	case strings.HasPrefix(s, "Skipped"), strings.Contains(s, "Disabled"):
		return Skipped
	case strings.HasPrefix(s, "Timeout"), strings.HasPrefix(s, "Not Run"):
		return Errored
	}
	return Failed
}
