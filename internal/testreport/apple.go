package testreport

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

var (
	// "Test Case '-[Mod.Suite testX]' passed (0.001 seconds)." (macOS),
	// "Test Case 'Suite.testX' failed (0.0 seconds)" (Linux),
	// "Test case 'Suite.testX()' failed on 'Clone 1 of iPad Air 2 - App (20698)' (0.000 seconds)" (parallel).
	xcCaseRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^Test [Cc]ase '([^']+)' (started|passed|failed|skipped)(?: on '[^']*')?(?: \((\d+(?:\.\d+)?) seconds\))?`)
	})
	// "/path/File.swift:34: error: -[Mod.Suite testX] : XCTAssertTrue failed - ..."
	xcAssertRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.+?):(\d+): error: (-\[[^\]]+\]|[\w.]+) : (.*)$`) })
	// "Executed 4 tests, with 1 failure (0 unexpected) in 0.002 (0.002) seconds"
	xcExecutedRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Executed (\d+) tests?, with (\d+) failures?`) })
	// "file:12:5: error: message" — a compiler diagnostic
	diagErrorRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:[^:\s][^:]*:\d+(?::\d+)?: )?(?:fatal )?error: `) })
	// Swift Testing: "Test run with 351 tests failed after 3.787 seconds with 6 issues."
	stRunRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^Test run with (\d+) tests?(?: in \d+ suites?)? (passed|failed) after [\d.]+ seconds(?: with (\d+) issues?)?`)
	})
	// "... recorded an issue at File.swift:17:9: Expectation failed: ..."
	stIssueRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(` at ([^\s:]+):(\d+):(\d+): (.*)$`) })
	stAfterRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(` after (\d+(?:\.\d+)?) seconds`) })
)

// appleParser reads xcodebuild and `swift test` output: XCTest, Swift
// Testing, the "Testing failed:" / "Failing tests:" lists, compiler errors and
// the runner crashes that end a test without a verdict.
type appleParser struct {
	rep   *Report
	index map[string]int // case id ("-[S t]", "S.t", "swift-testing:name") -> Cases

	running      int  // Cases index of the XCTest case started and not finished, or -1
	crashPending bool // a crash indicator was seen while running was set
	topExecuted  bool // the next "Executed" line is a bundle's total
	stFailed     bool // a Swift Testing run failed: its failed-test count is unknown
	stStarted    bool // "Test run started." came; its "Test run with N tests" has not

	list          string   // "testing", "failing" or "commands": the list being read
	failingTests  []string // names under "Failing tests:"
	buildCommands []string // items under "The following build commands failed:"
	assertions    map[string]Case
	stDone        map[int]bool // Swift Testing cases that have their verdict
}

func parseApple(r io.Reader) (*Report, error) {
	p := &appleParser{rep: &Report{Format: FormatXCTest}, index: map[string]int{}, running: -1, assertions: map[string]Case{}, stDone: map[int]bool{}}
	if err := lines(r, p.line); err != nil {
		return nil, err
	}
	if p.running >= 0 && !p.crashPending {
		c := p.rep.Cases[p.running]
		p.rep.cutShort(c.Suite, c.Name, "the output ended")
	}
	p.endRunning("the output ended while the test was running")
	p.stEnd()
	p.finish()
	if p.rep.ToolSummary == nil && len(p.rep.Cases) > 0 && len(p.rep.CutShort) == 0 && len(p.rep.RunnerErrors) == 0 && !p.rep.crashSeen {
		// Tests ran, and neither XCTest's "Executed N tests", Swift
		// Testing's "Test run with N tests" nor xcodebuild's "** TEST … **"
		// came.
		p.rep.cutShort("xctest", "", "the output ended before the test runner's summary")
	}
	return p.rep, nil
}

func (p *appleParser) line(line string) {
	if p.list != "" && p.listItem(line) {
		return
	}
	p.list = ""
	body := strings.TrimSpace(line)
	if msg, ok := stripNSLog(body); ok {
		body = msg
	}
	if body == "" {
		return
	}
	if p.glyphLine(body) || p.xctestLine(body) {
		return
	}
	p.otherLine(body)
}

func (p *appleParser) xctestLine(body string) bool {
	if m := xcCaseRE().FindStringSubmatch(body); m != nil {
		p.caseEvent(m[1], m[2], m[3])
		return true
	}
	if m := xcAssertRE().FindStringSubmatch(body); m != nil {
		ln, _ := strconv.Atoi(m[2])
		c := Case{File: m[1], Line: ln, Message: bound(m[4])}
		if i, ok := p.index[m[3]]; ok && p.rep.Cases[i].Message == "" {
			p.rep.Cases[i].File, p.rep.Cases[i].Line, p.rep.Cases[i].Message = c.File, c.Line, c.Message
		} else if !ok {
			p.assertions[m[3]] = c
		}
		return true
	}
	if strings.HasPrefix(body, "Test Suite '") {
		p.topExecuted = (strings.HasPrefix(body, "Test Suite 'All tests' ") || strings.HasPrefix(body, "Test Suite 'Selected tests' ")) &&
			!strings.Contains(body, "' started")
		if strings.Contains(body, "' started") && p.running >= 0 {
			p.endRunning("the test runner restarted before the test finished")
		}
		return true
	}
	if m := xcExecutedRE().FindStringSubmatch(body); m != nil {
		if p.topExecuted {
			ts := p.rep.summary()
			total, _ := strconv.Atoi(m[1])
			failed, _ := strconv.Atoi(m[2])
			addTally(&ts.Total, total)
			addTally(&ts.Failed, failed)
			ts.addLine(body)
			p.topExecuted = false
		}
		return true
	}
	return false
}

// caseEvent records an XCTest case line.
func (p *appleParser) caseEvent(id, event, secs string) {
	i, ok := p.index[id]
	if !ok {
		suite, name := splitXCTestID(id)
		i = len(p.rep.Cases)
		p.index[id] = i
		p.rep.Cases = append(p.rep.Cases, Case{Suite: suite, Name: name, Status: Errored})
		if a, ok := p.assertions[id]; ok {
			c := &p.rep.Cases[i]
			c.File, c.Line, c.Message = a.File, a.Line, a.Message
			delete(p.assertions, id)
		}
	}
	c := &p.rep.Cases[i]
	if s, err := strconv.ParseFloat(secs, 64); err == nil {
		c.Duration = time.Duration(s * float64(time.Second))
	}
	switch event {
	case "started":
		if p.running >= 0 && p.running != i {
			p.endRunning("another test started before this one finished")
		}
		p.running, p.crashPending = i, false
		return
	case "passed":
		c.Status = Passed
	case "failed":
		c.Status = Failed
		if p.crashPending && p.running == i {
			c.Status = Crashed // "Restarting after unexpected exit, crash, or test timeout"
		}
	case "skipped":
		c.Status = Skipped
	}
	if p.running == i {
		p.running, p.crashPending = -1, false
	}
}

// endRunning gives the started, unfinished XCTest case its verdict.
func (p *appleParser) endRunning(why string) {
	if p.running < 0 {
		return
	}
	c := &p.rep.Cases[p.running]
	c.Status = Errored
	if p.crashPending {
		c.Status = Crashed
		why = "the test runner crashed while the test was running"
	}
	c.Message = strings.TrimSpace(why + "\n" + c.Message)
	p.running, p.crashPending = -1, false
}

// splitXCTestID splits "-[Mod.Suite test]", "Suite.test" or "Suite.test()".
func splitXCTestID(id string) (suite, name string) {
	if strings.HasPrefix(id, "-[") && strings.HasSuffix(id, "]") {
		s, n, ok := strings.Cut(id[2:len(id)-1], " ")
		if ok {
			return s, n
		}
	}
	if i := strings.LastIndex(strings.TrimSuffix(id, "()"), "."); i > 0 {
		return id[:i], id[i+1:]
	}
	return "", id
}

// Swift Testing's symbols, as Unicode or SF Symbols (macOS).
var (
	stFail   = []string{"\u2718", "\U00100884"}
	stPass   = []string{"\u2714", "\U0010105b", "\U00100dac"}
	stSkip   = []string{"\u279c", "\U0010065f"}
	stOthers = []string{"\u25c7", "\U001007c8", "\u21b3", "\U00100135", "\u26a0", "\U001001ff"}
)

func cutGlyph(body string, glyphs []string) (string, bool) {
	for _, g := range glyphs {
		if rest, ok := strings.CutPrefix(body, g); ok {
			return strings.TrimLeft(rest, " "), true
		}
	}
	return "", false
}

func (p *appleParser) glyphLine(body string) bool {
	if body[0] < 0x80 {
		return false
	}
	if rest, ok := cutGlyph(body, stFail); ok {
		p.swiftTesting(rest, Failed)
		return true
	}
	if rest, ok := cutGlyph(body, stPass); ok {
		p.swiftTesting(rest, Passed)
		return true
	}
	if rest, ok := cutGlyph(body, stSkip); ok {
		p.swiftTesting(rest, Skipped)
		return true
	}
	if rest, ok := cutGlyph(body, stOthers); ok {
		p.stStart(rest)
		return true
	}
	if rest, ok := strings.CutPrefix(body, "\u274c"); ok { // xcbeautify's ❌ compiler error
		p.rep.BuildErrors = addDistinct(p.rep.BuildErrors, strings.TrimSpace(rest))
		return true
	}
	return false
}

// swiftTesting handles "Test x() passed after ...", "Test x() recorded an
// issue at F:L:C: msg", "Test run with N tests failed ...".
func (p *appleParser) swiftTesting(rest string, st Status) {
	if m := stRunRE().FindStringSubmatch(rest); m != nil {
		ts := p.rep.summary()
		n, _ := strconv.Atoi(m[1])
		issues, _ := strconv.Atoi(m[3])
		addTally(&ts.Total, n)
		ts.Issues += issues
		if m[2] == "failed" {
			p.stFailed = true
		} else if ts.Failed < 0 {
			ts.Failed = 0
		}
		ts.addLine(rest)
		p.stStarted = false
		return
	}
	after, ok := strings.CutPrefix(rest, "Test ")
	if !ok {
		return // "Suite X failed after ..."
	}
	name, tail := stName(after)
	id := "swift-testing:" + name
	i, seen := p.index[id]
	verdict := !strings.HasPrefix(tail, "recorded") && !strings.HasPrefix(tail, "started")
	if seen && verdict && p.stDone[i] {
		seen = false // the same function name in another suite
	}
	if !seen {
		i = len(p.rep.Cases)
		p.index[id] = i
		p.rep.Cases = append(p.rep.Cases, Case{Suite: "(swift-testing)", Name: name, Status: st})
	}
	c := &p.rep.Cases[i]
	switch {
	case strings.HasPrefix(tail, "recorded an issue"):
		c.Status = Failed
		if c.File == "" {
			if m := stIssueRE().FindStringSubmatch(tail); m != nil {
				c.File = m[1]
				c.Line, _ = strconv.Atoi(m[2])
				c.Message = bound(m[4])
			}
		}
		return
	case strings.HasPrefix(tail, "recorded a warning"), strings.HasPrefix(tail, "started"):
		return
	}
	p.stDone[i] = true
	if st == Passed && c.Status == Failed {
		return // a test with known issues; keep its failure
	}
	c.Status = st
	if st == Skipped {
		c.Message = strings.TrimPrefix(strings.TrimPrefix(tail, "skipped"), ": ")
	}
	if m := stAfterRE().FindStringSubmatch(tail); m != nil {
		s, _ := strconv.ParseFloat(m[1], 64)
		c.Duration = time.Duration(s * float64(time.Second))
	}
}

// stStart notes "Test run started." and "Test x() started.", so that a
// run cut short (killed, or its output lost) names the tests it was in and
// is never read as a clean one.
func (p *appleParser) stStart(rest string) {
	if rest == "Test run started." {
		p.stStarted = true
		return
	}
	after, ok := strings.CutPrefix(rest, "Test ")
	// A parameterized test's cases ("Test case passing 1 argument …")
	// report no verdict of their own: their test does.
	if !ok || strings.HasPrefix(after, "case passing ") {
		return
	}
	name, tail := stName(after)
	if !strings.HasPrefix(tail, "started") {
		return
	}
	id := "swift-testing:" + name
	if i, seen := p.index[id]; seen && !p.stDone[i] {
		return
	}
	p.index[id] = len(p.rep.Cases)
	p.rep.Cases = append(p.rep.Cases, Case{Suite: "(swift-testing)", Name: name, Status: Errored})
}

// stEnd gives Swift Testing tests started and never finished their
// verdict, and says so when the run's summary line never came.
func (p *appleParser) stEnd() {
	open := 0
	for i := range p.rep.Cases {
		c := &p.rep.Cases[i]
		if c.Suite != "(swift-testing)" || p.stDone[i] {
			continue
		}
		c.Message = strings.TrimSpace("the output ended while the test was running\n" + c.Message)
		if !p.rep.crashSeen {
			p.rep.cutShort(c.Suite, c.Name, "the output ended")
		}
		open++
	}
	if p.stStarted && open == 0 && !p.rep.crashSeen {
		p.rep.cutShort("swift-testing", "", "the output ended before Swift Testing's summary (\"Test run with N tests …\")")
	}
}

// stName splits `x() passed after` or `"Display name" failed after`.
func stName(s string) (name, tail string) {
	if strings.HasPrefix(s, `"`) {
		if end := strings.Index(s[1:], `" `); end >= 0 {
			return s[1 : end+1], strings.TrimLeft(s[end+2:], " ")
		}
	}
	end := -1
	for _, kw := range []string{" passed", " failed", " recorded", " skipped", " started"} {
		if i := strings.Index(s, kw); i > 0 && (end < 0 || i < end) {
			end = i
		}
	}
	if end < 0 {
		return s, ""
	}
	return s[:end], s[end+1:]
}
