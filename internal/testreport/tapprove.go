package testreport

import (
	"regexp"
	"strings"
	"sync"
)

var (
	// A test file's line: "t/01-pass.t .... ok", "t/02-fail.t .... " (its
	// TAP follows under -v, prove's verdict after it), "[12:00:01]
	// t/x.t .. ok   23 ms" (--timer).
	proveFileRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:\[\d\d:\d\d:\d\d\] )?([^#\s]\S*) \.{2,}(?: (.*))?$`)
	})
	// prove's verdict lines on a test file.
	proveVerdictRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:ok(?:\s+\d+ ms.*)?|Failed \d+/\d+ subtests\s*|All \d+ subtests passed\s*|No subtests run\s*|skipped: .*|` +
			`Dubious, test returned \d+ \(wstat \d+, 0x[0-9a-f]+\)|\s*\(less \d+ skipped subtests?: \d+ okay\))$`)
	})
	// The Test Summary Report's line on a file:
	// "t/03-segv.t  (Wstat: 11 (Signal: SEGV) Tests: 2 Failed: 0)",
	// "t/02-fail.t  (Wstat: 512 (exited 2) Tests: 6 Failed: 2)".
	proveEntryRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\S+)\s+\(Wstat: (\d+)(?: \(([^)]*)\))? Tests: (\d+) Failed: (\d+)\)$`)
	})
	// "Bad plan.  You planned 5 tests but ran 3."
	proveBadPlanRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^Bad plan\.\s+You planned (\d+) tests? but ran (\d+)\.$`)
	})
	// "Files=2, Tests=9,  0 wallclock secs ( … )"
	proveTallyRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^Files=(\d+), Tests=(\d+),`)
	})
)

// maxVerdict bounds the lines of prove's verdict kept for a test file.
const maxVerdict = 8

// proveState reads what prove prints around its test files' TAP. Each
// file's line names it ("t/02-fail.t .... "); under -v its TAP follows,
// then prove's verdict ("ok", "Failed 2/6 subtests", "Dubious, test
// returned 2 …"); without -v the verdict alone, so the file is the case.
// At the end, the Test Summary Report says per failed file how its
// program ended ("Wstat: 11 (Signal: SEGV)": a signal) and what was wrong
// with its TAP ("Parse errors: Bad plan.  You planned 5 tests but ran
// 3.": cut short), then "Files=N, Tests=M" and "Result: PASS" or "FAIL".
// A test's stderr (Test::More's diagnostics, "Bailout called") comes
// into a merged log ahead of prove's buffered stdout, before its file's
// line. A prove run is complete with its Result line.
type proveState struct {
	seen    bool // prove's lines were seen: the streams are its test files
	verbose bool // a file's TAP was shown (-v)
	files   map[string]*tapStream
	report  bool       // in the Test Summary Report
	entry   *tapStream // the report's file being read
	lastKey string     // the report's last key ("Parse errors"), for its continuation lines
	tally   bool       // "Files=…, Tests=…" came
	result  bool       // "Result: …" came
}

// inFile reports whether TAP lines belong to prove's test file, not to a
// stream of their own.
func (ps *proveState) inFile() bool { return ps.seen }

// line reads a line of prove's own; it reports whether it was one.
func (ps *proveState) line(p *tapParser, l string) bool {
	if m := proveFileRE().FindStringSubmatch(l); m != nil && strings.ContainsAny(m[1], "./") && !ps.report {
		p.endStream()
		ps.seen = true
		s := p.newStream(m[1])
		ps.files[m[1]] = s
		p.stream = s
		if v := strings.TrimSpace(m[2]); v != "" {
			s.verdict = append(s.verdict, v)
		}
		return true
	}
	switch {
	case l == "Test Summary Report":
		p.endStream()
		ps.seen, ps.report = true, true
		return true
	case l == "All tests successful.":
		p.endStream()
		ps.seen = true
		p.rep.summary().addLine(l)
		return true
	case strings.HasPrefix(l, "Bailout called."):
		// "Bailout called.  Further testing stopped:  database is not running"
		_, why, _ := strings.Cut(l, "stopped:")
		p.rep.RunnerErrors = addDistinct(p.rep.RunnerErrors, "Bail out! "+strings.TrimSpace(why))
		return true
	case strings.HasPrefix(l, "FAILED--Further testing stopped: "):
		p.rep.RunnerErrors = addDistinct(p.rep.RunnerErrors, "Bail out! "+strings.TrimPrefix(l, "FAILED--Further testing stopped: "))
		return true
	}
	if m := proveTallyRE().FindStringSubmatch(l); m != nil {
		ps.tallyLine(p, l, m)
		return true
	}
	if v, ok := strings.CutPrefix(l, "Result: "); ok && ps.seen {
		ps.result = true
		ts := p.rep.summary()
		ts.addLine(l)
		if v != "PASS" {
			ts.Verdict = "tests failed"
		}
		return true
	}
	if !ps.seen {
		return false
	}
	if ps.report {
		return ps.reportLine(p, l)
	}
	if s := p.stream; s != nil && proveVerdictRE().MatchString(l) {
		if len(s.verdict) < maxVerdict {
			s.verdict = append(s.verdict, strings.TrimSpace(l))
		}
		return true
	}
	return false
}

// tallyLine reads "Files=2, Tests=9, …": the tests are the files'
// results under -v, else the files themselves.
func (ps *proveState) tallyLine(p *tapParser, l string, m []string) {
	p.endStream()
	ps.seen, ps.tally, ps.report = true, true, false
	ts := p.rep.summary()
	n := m[1]
	if ps.verbose {
		n = m[2]
	} else {
		p.rep.Notes = append(p.rep.Notes, "prove ran without -v: each test file counts as one test (prove -v shows each test's result)")
	}
	addTally(&ts.Total, tallyCount(n))
	ts.addLine(l)
}

// reportLine reads a line of the Test Summary Report.
func (ps *proveState) reportLine(p *tapParser, l string) bool {
	if m := proveEntryRE().FindStringSubmatch(l); m != nil {
		ps.entry = ps.files[m[1]]
		if ps.entry == nil {
			ps.entry = p.newStream(m[1])
			ps.entry.ended = true
			ps.files[m[1]] = ps.entry
		}
		ps.wstat(p, ps.entry, m[2], m[3])
		return true
	}
	s := ps.entry
	if s == nil {
		return strings.Trim(l, "-") == ""
	}
	key, val, ok := strings.Cut(strings.TrimSpace(l), ":")
	if !strings.HasPrefix(l, "  ") {
		return false
	}
	if !ok || strings.HasPrefix(l, "    ") {
		key, val = ps.lastKey, strings.TrimSpace(l) // a continuation
	}
	ps.lastKey = key
	val = strings.TrimSpace(val)
	switch key {
	case "Failed tests", "Failed test":
		s.failedTests = true
		if s.fileCase >= 0 {
			c := &p.rep.Cases[s.fileCase]
			c.Message = bound(strings.TrimSpace("failed tests: " + val + "\n" + c.Message))
		}
	case "Parse errors":
		ps.parseError(p, s, val)
	case "TODO passed":
		p.rep.Notes = addDistinct(p.rep.Notes, s.name+": TODO tests passed: "+val)
	}
	return true
}

// wstat reads how a file's program ended: an exit status, or a signal
// that crashed it.
func (ps *proveState) wstat(p *tapParser, s *tapStream, wstat, how string) {
	if code, ok := strings.CutPrefix(how, "exited "); ok {
		s.exit = "exit status " + code
	} else if sig, ok := strings.CutPrefix(how, "Signal: "); ok {
		sig, _, _ = strings.Cut(sig, ",")
		s.crash = "SIG" + sig + " (Wstat: " + wstat + ")"
	} else {
		return
	}
	switch {
	case s.cut >= 0:
		p.endedEarly(s, s.how)
	case s.fileCase >= 0:
		c := &p.rep.Cases[s.fileCase]
		if s.crash != "" {
			c.Status = Crashed
		}
		c.Message = bound(strings.TrimSpace(s.crash + s.exit + "\n" + c.Message))
	case s.crash != "": // after its last test: at exit
		p.rep.crashSeen = true
		p.rep.RunnerErrors = addDistinct(p.rep.RunnerErrors, s.name+": "+s.crash+" after its last test")
	}
}

// parseError reads a file's parse error: a plan not met was cut short,
// unless its TAP under -v said so already.
func (ps *proveState) parseError(p *tapParser, s *tapStream, e string) {
	e = strings.Join(strings.Fields(e), " ")
	m := proveBadPlanRE().FindStringSubmatch(strings.Replace(e, ". ", ".  ", 1))
	switch {
	case m != nil && s.cut < 0:
		planned, ran := tallyCount(m[1]), tallyCount(m[2])
		if ran > planned {
			p.rep.RunnerErrors = addDistinct(p.rep.RunnerErrors, s.name+": "+e)
			return
		}
		if s.count == 0 {
			s.plan, s.count, s.lastNum = planned, ran, ran
		}
		ps.markCut(p, s, e)
	case e == "No plan found in TAP output" && s.cut < 0:
		ps.markCut(p, s, e)
	case m == nil && e != "No plan found in TAP output":
		p.rep.RunnerErrors = addDistinct(p.rep.RunnerErrors, s.name+": "+e)
	}
}

// markCut records a file cut short by prove's report.
func (ps *proveState) markCut(p *tapParser, s *tapStream, why string) {
	// "Failed 2/5 subtests" counts the tests that never ran: without
	// "Failed tests:" none failed.
	if c := s.fileCase; c >= 0 && (p.rep.Cases[c].Status == Passed || p.rep.Cases[c].Status == Failed && !s.failedTests) {
		p.rep.Cases[c].Status = Errored
	}
	if c := s.fileCase; c >= 0 && !strings.Contains(p.rep.Cases[c].Message, why) {
		p.rep.Cases[c].Message = bound(strings.TrimSpace(p.rep.Cases[c].Message + "\n" + why))
	}
	p.endedEarly(s, why)
}

// endFile ends a test file under prove: one whose TAP prove did not show
// (no -v) is a case of its own, by prove's verdict.
func (ps *proveState) endFile(p *tapParser, s *tapStream) {
	if !ps.seen || ps.files[s.name] != s {
		return
	}
	if s.count > 0 || s.plan >= 0 {
		ps.verbose = true
		return
	}
	v := strings.Join(s.verdict, "\n")
	c := Case{Suite: FormatTAP, Name: s.name, Status: Errored, Message: bound(v)}
	switch {
	case len(s.verdict) == 0:
		c.Message = "prove showed no result for it"
	case s.verdict[0] == "ok" || strings.HasPrefix(s.verdict[0], "ok "):
		c.Status, c.Message = Passed, ""
	case strings.HasPrefix(s.verdict[0], "skipped:"):
		c.Status, c.Message = Skipped, bound(strings.TrimSpace(strings.TrimPrefix(s.verdict[0], "skipped:")))
	case strings.Contains(v, "Failed "):
		c.Status = Failed
	}
	s.fileCase = len(p.rep.Cases)
	p.rep.Cases = append(p.rep.Cases, c)
}

// finish ends prove's run: one without its Result line was cut short.
func (ps *proveState) finish(p *tapParser) {
	if ps.seen && !ps.result {
		p.rep.cutShort("prove", "", "the output ended before prove's summary (Result: line)")
	}
}
