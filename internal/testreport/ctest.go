package testreport

import (
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/crashsite"
)

var (
	// "2/3 Test #2: crash ............................***Exception: SegFault  0.00 sec",
	// "3/4 Test #3: t_abort ..........Subprocess aborted***Exception:   0.02 sec"
	ctestCaseRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*\d+/\d+ Test\s+#\d+: (\S+) \.*\s*(.*?)\s+([\d.]+) sec`)
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
	p := &ctestParser{rep: &Report{Format: FormatCTest}}
	if err := lines(r, p.line); err != nil {
		return nil, err
	}
	p.finish()
	return p.rep, nil
}

// ctestParser reads ctest's output line by line.
type ctestParser struct {
	rep      *Report
	started  []string // tests started without a result line, in order
	summary  bool
	inReport bool       // a sanitizer report's frames are being read
	stack    *stackCase // the report's first stack, for the case it ran in
	race     *raceReport
	report   reportSection  // what the pipeline adopted from CTest's JUnit file
	out      *programOutput // a failed test's output (--output-on-failure)
	outCase  int            // its case's index
}

func (p *ctestParser) line(line string) {
	if p.report.line(line) {
		return
	}
	if m := ctestStartRE().FindStringSubmatch(line); m != nil {
		p.endOutput()
		p.started = append(p.started, m[1])
		return
	}
	if m := ctestCaseRE().FindStringSubmatch(line); m != nil {
		p.endOutput()
		p.result(m)
		return
	}
	if m := ctestSummaryRE().FindStringSubmatch(line); m != nil {
		p.endOutput()
		p.tally(line, m)
		return
	}
	if p.out != nil {
		p.out.line(line)
	}
	p.failedOutput(line)
}

// endOutput ends a failed test's output: what its framework said of it
// (the test inside that failed, where) goes to its case.
func (p *ctestParser) endOutput() {
	if p.out == nil {
		return
	}
	p.rep.Cases[p.outCase].adoptFramework(p.out.framework(), p.out.truncated)
	p.rep.Cases[p.outCase].nameCase(p.stack)
	p.out, p.stack = nil, nil
}

// result records a test's result line.
func (p *ctestParser) result(m []string) {
	if i := slices.Index(p.started, m[1]); i >= 0 {
		p.started = slices.Delete(p.started, i, i+1)
	}
	result := strings.TrimSpace(strings.ReplaceAll(m[2], "***", " "))
	c := Case{Suite: "ctest", Name: m[1], Status: ctestStatus(result)}
	if secs, err := strconv.ParseFloat(m[3], 64); err == nil {
		c.Duration = time.Duration(secs * float64(time.Second))
	}
	if c.Status != Passed {
		c.Message = result
		if c.Status != Skipped {
			p.out, p.outCase = &programOutput{}, len(p.rep.Cases)
		}
	}
	if strings.HasPrefix(result, "Timeout") {
		// "***Timeout  30.06 sec": CTest killed it at its limit.
		c.Kind, c.Message = KindTimeout, "timed out after "+m[3]+" s"
	}
	p.rep.Cases = append(p.rep.Cases, c)
}

// lastFailed is the last test's case when it failed, else nil.
func (p *ctestParser) lastFailed() *Case {
	if n := len(p.rep.Cases); n > 0 && p.rep.Cases[n-1].Status == Failed {
		return &p.rep.Cases[n-1]
	}
	return nil
}

// failedOutput reads what --output-on-failure prints after a failed test's
// result line: a sanitizer report there makes the test crashed, whatever
// exit status the sanitizer chose.
func (p *ctestParser) failedOutput(line string) {
	if c := p.lastFailed(); c != nil && isRaceStart(line) {
		// A data race fails the test, which ran to its end: race.go.
		c.Kind, c.Message = KindDataRace, sanitizerMessage(line)
		p.race = &raceReport{}
		p.race.feed(line)
		return
	}
	if p.race != nil && p.race.feed(line) {
		c := &p.rep.Cases[len(p.rep.Cases)-1]
		c.File, c.Line = p.race.site.File, p.race.site.Line
		c.Message += " in " + p.race.site.Function + " at " + c.File + ":" + strconv.Itoa(c.Line)
		p.race = nil
	}
	if c := p.lastFailed(); c != nil && isSanitizerReport(line) {
		c.Status, c.Message = Crashed, sanitizerMessage(line)
		p.inReport, p.stack = true, &stackCase{}
		return
	}
	if p.stack != nil {
		p.stack.feed(line)
	}
	if n := len(p.rep.Cases); p.inReport && n > 0 {
		// The report's first frame in the program's own code.
		if fn, file, ln, ok := sanitizerFrame(line); ok {
			c := &p.rep.Cases[n-1]
			c.File, c.Line = file, ln
			c.Message += " in " + fn + " at " + file + ":" + strconv.Itoa(ln)
			p.inReport = false
		}
	}
}

// tally records ctest's summary line, "50% tests passed, 1 tests failed out of 2".
func (p *ctestParser) tally(line string, m []string) {
	p.summary = true
	ts := p.rep.summary()
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

// finish marks the run cut short when ctest's summary never came.
func (p *ctestParser) finish() {
	p.endOutput()
	p.report.adopt(p.rep)
	if p.summary {
		return
	}
	for _, name := range p.started {
		p.rep.Cases = append(p.rep.Cases, Case{Suite: "ctest", Name: name, Status: Errored,
			Message: "ctest ended before the test finished (the output ended)"})
		p.rep.cutShort("ctest", name, "the output ended")
	}
	if len(p.started) == 0 && len(p.rep.Cases) > 0 {
		p.rep.cutShort("ctest", "", "the output ended before ctest's summary")
	}
}

// ctestStatus maps CTest's result words. "Exception" covers the signals
// (SegFault, Illegal, Numerical, Subprocess aborted, Child killed).
func ctestStatus(s string) Status {
	s = strings.TrimSpace(s)
	switch {
	case s == "Passed":
		return Passed
	case strings.Contains(s, "Exception"), strings.Contains(s, "aborted"), strings.Contains(s, "killed"):
		return Crashed
	case strings.HasPrefix(s, "Skipped"), strings.Contains(s, "Disabled"):
		return Skipped
	case strings.HasPrefix(s, "Timeout"), strings.HasPrefix(s, "Not Run"):
		return Errored
	}
	return Failed
}

// isSanitizerReport recognises the first line of a sanitizer's report:
// "==4242==ERROR: AddressSanitizer: heap-buffer-overflow on address …",
// "WARNING: ThreadSanitizer: data race", "x.c:3:5: runtime error: …".
func isSanitizerReport(line string) bool {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "==") {
		if i := strings.Index(t[2:], "=="); i >= 0 {
			t = t[2+i+2:]
		}
	}
	return (strings.HasPrefix(t, "ERROR: ") || strings.HasPrefix(t, "WARNING: ")) && strings.Contains(t, "Sanitizer") ||
		strings.Contains(t, ": runtime error: ")
}

// sanitizerMessage is a report's first line without the pid and address:
// "AddressSanitizer: heap-buffer-overflow".
func sanitizerMessage(line string) string {
	t := strings.TrimSpace(line)
	if i := strings.Index(t, "Sanitizer: "); i >= 0 {
		start := strings.LastIndexAny(t[:i], " =") + 1
		t = t[start:]
		if j := strings.Index(t, " on "); j > 0 {
			t = t[:j]
		}
	}
	return t
}

// sanitizerFrame reads a sanitizer stack frame, "#0 0x55d1 in fill
// /src/tests/asan.c:4:10" (crashsite.SanitizerFrame: either shape, C++ and
// Rust names with spaces), when it has a source line in the program's own
// code by the one crashing-frame rule (crashsite): not the sanitizer's
// interceptors, nor a system library.
func sanitizerFrame(line string) (fn, file string, ln int, ok bool) {
	f, ok := crashsite.SanitizerFrame(line)
	if !ok || !f.HasSource() || crashsite.OriginOf(f, "") != crashsite.Project {
		return "", "", 0, false
	}
	return f.Function, f.File, f.Line, true
}
