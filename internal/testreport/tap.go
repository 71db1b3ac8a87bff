package testreport

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// FormatTAP is the Test Anything Protocol: a TAP producer's own output
// (Perl's Test::More, node --test --test-reporter=tap, a C TAP library),
// and Perl's prove running test files (tapprove.go).
const FormatTAP = "tap"

var (
	// A line only TAP or prove prints: a version, a numbered result, a
	// plan alone on its line, a bail out, prove's tally.
	tapAnchorRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^(?:TAP version 1[34]\r?$|(?:not )?ok \d+(?:[ \t]|\r?$)|1\.\.\d+[ \t]*(?:#.*)?\r?$|Bail out!|Files=\d+, Tests=\d+, |All tests successful\.\r?$)`)
	})
	// "ok 1 - adds", "not ok 2 - two and two", "ok 3 # skip no network",
	// "not ok 4 - future # TODO not written", "ok" (a number and a
	// description are optional).
	tapResultRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(not )?ok(?:\s+(\d+))?(?:\s+-)?(?:\s+(.*?))?\s*$`)
	})
	// "1..6", "1..0 # SKIP no database"
	tapPlanRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^1\.\.(\d+)\s*(?:#\s*(.*))?$`)
	})
	// A directive after a description's "#": "SKIP reason", "skipped: why", "TODO reason".
	tapDirectiveRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(skip|todo)\S*\s*(.*)$`)
	})
	// Test::More's diagnostics of a failed test, on stderr:
	// "#   Failed test 'two and two'" then "#   at t/02-fail.t line 4.",
	// or "#   Failed test at t/x.t line 4." for a test without a name.
	tapFailedDiagRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^#\s+Failed (\(TODO\) )?test(?: '(.*)'| at (.+) line (\d+)\.)$`)
	})
	tapDiagAtRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^#\s+at (.+) line (\d+)\.$`)
	})
)

// tapParser reads TAP. A stream (a test file under prove, or one
// program's output) has a plan, "1..N", first or last, and a result line
// per test: "ok", "not ok", a number, a description, and a directive: a
// SKIP is skipped, a failed TODO is expected (passed), a TODO that passed
// is noted. "Bail out!" stops the run. A YAML block ("---" … "...",
// indented under a result) tells more of it: the message ("message",
// "error") and the site ("location", "at", "file"/"line"). A subtest is
// indented TAP under its parent's result; its failures go into the
// parent's message, its results are not counted (prove does not count
// them). Test::More's diagnostics ("#   Failed test 'x'", "#   at t/x.t
// line 4.") give a failed test's file and line, matched to it by name:
// they go to stderr, which a merged log holds out of step with stdout.
//
// A stream is complete when its plan is met: fewer results than planned,
// or no plan after the results, means the program ended early (exit(0)
// in a test, a crash), recorded in CutShort with the test that never
// reported ("test 4") and the last that did; a line after it saying the
// program died (the shell's "Segmentation fault", a sanitizer's report)
// makes that test crashed.
type tapParser struct {
	rep    *Report
	stream *tapStream
	diags  []tapDiag
	diag   *tapDiag // a diagnostic whose lines are being read
	yaml   *tapYAML // a YAML block being read
	after  int      // rep.Cases index of the top-level result just read, -1 after other lines

	prove proveState // prove's own lines (tapprove.go)
}

// tapStream is one TAP stream: a test file's output under prove, or one
// program's.
type tapStream struct {
	name     string // the suite of its cases: the test file, or FormatTAP
	plan     int    // -1 until a plan is seen
	count    int    // top-level results
	lastNum  int
	lastDesc string
	first    int    // its first case in rep.Cases
	crash    string // a line after it said the program died
	bail     string
	subFail  []string // failed results of the subtest being read

	// prove's account of it (tapprove.go)
	verdict     []string // prove's lines after the file's name
	fileCase    int      // its case when prove showed no results (not -v); -1
	cut         int      // its CutShort entry, -1
	how         string   // why it ended early, without the signal
	exit        string   // "exit status 2", prove's report of its end
	failedTests bool     // prove's report lists failed tests
	ended       bool
}

func parseTAP(r io.Reader) (*Report, error) {
	p := &tapParser{rep: &Report{Format: FormatTAP}, after: -1}
	p.prove.files = map[string]*tapStream{}
	if err := lines(r, p.line); err != nil {
		return nil, err
	}
	p.endStream()
	p.prove.finish(p)
	p.applyDiags()
	return p.rep, nil
}

func (p *tapParser) line(l string) {
	if p.yaml != nil && p.yamlLine(l) {
		return
	}
	if p.prove.line(p, l) {
		p.after = -1
		return
	}
	indent := len(l) - len(strings.TrimLeft(l, " "))
	t := strings.TrimSpace(l)
	if p.diagLine(t, indent) {
		return
	}
	if t == "---" && (p.after >= 0 || indent > 0) {
		// A YAML block: the last result's when it is indented under it.
		c := p.after
		if indent == 0 {
			c = -1
		}
		p.yaml = &tapYAML{indent: indent, c: c, vals: map[string]string{}}
		return
	}
	p.after = -1
	switch {
	case indent > 0:
		p.subtestLine(t)
	case strings.HasPrefix(t, "TAP version "):
		if s := p.stream; s != nil && (s.count > 0 || s.plan >= 0) && !p.prove.inFile() {
			p.endStream()
		}
	case tapPlanRE().MatchString(t):
		p.plan(t)
	case strings.HasPrefix(t, "Bail out!"):
		p.current().bail = strings.TrimSpace(strings.TrimPrefix(t, "Bail out!"))
	case tapResultRE().MatchString(t):
		p.after = p.result(tapResultRE().FindStringSubmatch(t))
	default:
		if ev := crashEvidence(t); ev != "" && p.stream != nil && p.stream.crash == "" {
			p.stream.crash = ev
		}
	}
}

// current is the stream being read, begun if none is.
func (p *tapParser) current() *tapStream {
	if p.stream == nil {
		p.stream = p.newStream(FormatTAP)
	}
	return p.stream
}

func (p *tapParser) newStream(name string) *tapStream {
	return &tapStream{name: name, plan: -1, first: len(p.rep.Cases), fileCase: -1, cut: -1}
}

// plan reads a plan line. Outside prove, a plan after a finished stream
// begins the next program's.
func (p *tapParser) plan(t string) {
	m := tapPlanRE().FindStringSubmatch(t)
	if s := p.stream; s != nil && s.plan >= 0 && !p.prove.inFile() {
		p.endStream()
	}
	s := p.current()
	s.plan = tallyCount(m[1])
	if s.plan == 0 {
		why := strings.TrimSpace(m[2])
		if d := tapDirectiveRE().FindStringSubmatch(why); d != nil {
			why = d[2]
		}
		p.rep.Cases = append(p.rep.Cases, Case{Suite: s.name, Name: s.name, Status: Skipped, Message: bound(why)})
	}
}

// result records a top-level result line and returns its case's index.
func (p *tapParser) result(m []string) int {
	if s := p.stream; s != nil && s.plan >= 0 && s.count >= s.plan && !p.prove.inFile() {
		p.endStream() // the next program's first result
	}
	s := p.current()
	s.count++
	num := s.count
	if n := tallyCount(m[2]); n > 0 {
		num = n
	}
	desc, directive := splitTAPDirective(m[3])
	c := Case{Suite: s.name, Name: desc, Status: Passed}
	if desc == "" {
		c.Name = "test " + strconv.Itoa(num)
	}
	if m[1] != "" {
		c.Status = Failed
	}
	if d := tapDirectiveRE().FindStringSubmatch(directive); d != nil {
		switch strings.ToLower(d[1]) {
		case "skip":
			c.Status, c.Message = Skipped, bound(d[2])
		case "todo":
			if c.Status == Failed {
				c.Status, c.Message = Passed, bound("TODO "+d[2]+" (failed, as a TODO test is expected to)")
			} else {
				c.Message = bound("TODO " + d[2] + " (passed unexpectedly)")
				p.rep.Notes = addDistinct(p.rep.Notes, fmt.Sprintf("%s: TODO test %d passed: %s", s.name, num, c.Name))
			}
		}
	}
	if c.Status == Failed && len(s.subFail) > 0 {
		c.Message = bound("failed subtests: " + strings.Join(s.subFail, ", "))
	}
	s.subFail = nil
	s.lastNum, s.lastDesc = num, desc
	p.rep.Cases = append(p.rep.Cases, c)
	return len(p.rep.Cases) - 1
}

// splitTAPDirective splits a result's text at its directive's "#".
func splitTAPDirective(s string) (desc, directive string) {
	for i := 0; i < len(s); i++ {
		if s[i] == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t') {
			return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:])
		}
	}
	return strings.TrimSpace(s), ""
}

// subtestLine reads an indented line: a subtest's TAP.
func (p *tapParser) subtestLine(t string) {
	m := tapResultRE().FindStringSubmatch(t)
	if m == nil || m[1] == "" || p.stream == nil {
		return
	}
	desc, directive := splitTAPDirective(m[3])
	if d := tapDirectiveRE().FindStringSubmatch(directive); d != nil {
		return // a skipped or TODO subtest fails nothing
	}
	if desc == "" {
		desc = "test " + m[2]
	}
	if len(p.stream.subFail) < 20 {
		p.stream.subFail = append(p.stream.subFail, desc)
	}
}

// endStream ends the stream being read: one whose plan was not met ended
// early.
func (p *tapParser) endStream() {
	s := p.stream
	if s == nil || s.ended {
		return
	}
	s.ended, p.stream = true, nil
	p.prove.endFile(p, s)
	if s.bail != "" {
		p.rep.RunnerErrors = addDistinct(p.rep.RunnerErrors, s.name+": Bail out! "+s.bail)
	}
	if s.count == 0 && s.plan < 0 {
		return
	}
	last := "no test reported"
	if s.count > 0 {
		last = fmt.Sprintf("the last was test %d", s.lastNum)
		if s.lastDesc != "" {
			last += " (" + s.lastDesc + ")"
		}
	}
	var how string
	switch {
	case s.plan < 0:
		how = "no plan (1..N) after the results; " + last
	case s.count < s.plan:
		how = fmt.Sprintf("planned %d tests, %d ran; %s", s.plan, s.count, last)
	case s.count > s.plan:
		p.rep.RunnerErrors = addDistinct(p.rep.RunnerErrors, fmt.Sprintf("%s: planned %d tests but ran %d", s.name, s.plan, s.count))
		return
	default:
		if s.crash != "" { // after its last test: at exit
			p.rep.crashSeen = true
			p.rep.RunnerErrors = addDistinct(p.rep.RunnerErrors, s.name+": "+s.crash+" after its last test")
		}
		return
	}
	if s.bail != "" {
		how = "Bail out! " + s.bail + "; " + how
	}
	p.endedEarly(s, how)
}

// endedEarly records that s's program ended before its plan was met:
// the test after the last result never reported, crashed when a line
// said the program died.
func (p *tapParser) endedEarly(s *tapStream, how string) {
	s.how = how
	if s.exit != "" {
		how = strings.TrimSuffix(how, ".") + "; " + s.exit
	}
	test := ""
	if s.plan > s.count {
		test = "test " + strconv.Itoa(s.lastNum+1)
	}
	if s.crash != "" {
		how = s.crash + ": " + how
		p.crashedIn(s, test, "the test program died: "+how)
	}
	if s.cut >= 0 {
		p.rep.CutShort[s.cut].How = how
		return
	}
	s.cut = len(p.rep.CutShort)
	p.rep.cutShort(s.name, test, how)
	if len(p.rep.CutShort) == s.cut {
		s.cut = -1
	}
}

// crashedIn records the test a signal ended: a crashed case for it (the
// output has no result of it), or a crash of the program when no test
// was left to run.
func (p *tapParser) crashedIn(s *tapStream, test, msg string) {
	if s.fileCase >= 0 {
		// prove without -v: the test file is the case.
		c := &p.rep.Cases[s.fileCase]
		c.Status, c.Message = Crashed, bound(msg)
		return
	}
	if test == "" {
		p.rep.crashSeen = true
		return
	}
	for i := s.first; i < len(p.rep.Cases); i++ {
		if c := &p.rep.Cases[i]; c.Suite == s.name && c.Name == test {
			c.Status, c.Message = Crashed, bound(msg)
			return
		}
	}
	p.rep.Cases = append(p.rep.Cases, Case{Suite: s.name, Name: test, Status: Crashed, Message: bound(msg)})
}
