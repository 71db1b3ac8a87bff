package testreport

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// FormatCatch2 is the console reporter's output of a Catch2 test program
// (v2 and v3, with or without -s) run directly.
const FormatCatch2 = "catch2"

var (
	// A line only Catch2 prints: v3's first line, the banner before the
	// first report, the summary.
	catch2AnchorRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^(?:Randomness seeded to: \d+\r?$|\S.* is a Catch2? v\d+\.\d+\.\d+ host application\.\r?$|` +
			`All tests passed \(\d+ assertions? in \d+ test cases?\)\r?$|test cases: +\d+ \| \d+ (?:passed|failed))`)
	})
	// "foo is a Catch v2.13.10 host application.", "… a Catch2 v3.7.1 …"
	catch2BannerRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\S.* is a Catch2? v\d+\.\d+\.\d+ host application\.$`)
	})
	// An assertion's site and result: "tests.cpp:15: FAILED:",
	// "tests.cpp:9: PASSED:" (-s), "tests.cpp:38: SKIPPED:" (v3's SKIP),
	// "tests.cpp:5: FAILED - but was ok:" ([!shouldfail]).
	catch2SiteRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.+?):(\d+): ((?:FAILED|PASSED|SKIPPED)(?: - but was ok)?):$`)
	})
	// "All tests passed (3 assertions in 2 test cases)"
	catch2AllPassedRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^All tests passed \((\d+) assertions? in (\d+) test cases?\)$`)
	})
	// "test cases: 5 | 2 passed | 2 failed | 1 skipped" (a count of 0 is
	// left out, "failed as expected" is [!shouldfail]'s)
	catch2TallyRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^test cases: +(\d+)((?: \| \d+ [a-z ]+)*)$`)
	})
)

// catch2Parser reads Catch2's console reporter. Catch2 names a test case
// only when it reports something: a header (the test case's name, its
// sections indented under it, between lines of dashes, then its
// file:line) before its first failed assertion, or before each assertion
// under -s; a passing test case is otherwise only counted in the summary,
// "test cases: 4 | 2 passed | 2 failed" or "All tests passed (…)". A
// signal in a test case is reported as its failure "due to a fatal error
// condition: SIGSEGV - Segmentation violation signal" before the summary,
// and the program then dies. v3 starts with "Randomness seeded to:"; an
// output without its summary was cut short (exit(0) in a test). Lines of
// --durations ("0.000 s: name") are not read: they name sections too.
type catch2Parser struct {
	run *frameworkRun

	header  []string // the header's lines while it is read
	state   int      // where in a header the next line is
	current string   // the test case the last header named
	section string   // its sections, " / "-joined
	wrapped bool     // the header line before was long: the next goes on with it

	failing *Case           // the case whose assertion's detail is being read
	detail  strings.Builder // that detail
}

// Where the next line is, in a header.
const (
	catch2Body       = iota
	catch2HeaderName // after the opening dashes: name, sections
	catch2HeaderSite // after the closing dashes: the file:line
	catch2HeaderDots // after the file:line: the dotted line
)

func parseCatch2(r io.Reader) (*Report, error) {
	p := &catch2Parser{run: newFrameworkRun(FormatCatch2, "Catch2")}
	p.run.quietWhy = "Catch2's console reporter names a test case only when it reports something (-s names each one with an assertion)"
	if err := lines(r, p.line); err != nil {
		return nil, err
	}
	p.endDetail()
	return p.run.done(), nil
}

func (p *catch2Parser) line(l string) {
	if p.state != catch2Body {
		p.headerLine(l)
		return
	}
	if p.failing != nil {
		if strings.TrimSpace(l) != "" {
			p.detail.WriteString(l)
			p.detail.WriteByte('\n')
			return
		}
		p.endDetail()
		return
	}
	switch {
	case strings.HasPrefix(l, "Randomness seeded to: "):
		p.run.begin("") // v3's first line
		p.current = ""
	case catch2BannerRE().MatchString(l):
		if p.run.summary {
			p.current = "" // the next program's
		}
		p.run.ensure()
	case isRuleOf(l, '-'):
		p.state, p.header, p.wrapped = catch2HeaderName, nil, false
	default:
		if m := catch2SiteRE().FindStringSubmatch(l); m != nil {
			p.assertion(m)
			return
		}
		p.summaryLine(l)
	}
}

// headerLine reads a line of a test case's header.
func (p *catch2Parser) headerLine(l string) {
	switch p.state {
	case catch2HeaderName:
		if isRuleOf(l, '-') {
			p.endHeader()
			p.state = catch2HeaderSite
			return
		}
		if n := len(p.header); n > 0 && p.wrapped {
			p.header[n-1] += " " + strings.TrimSpace(l)
		} else {
			p.header = append(p.header, l)
		}
		p.wrapped = len(l) >= 70 // Catch2 wraps a header line at 79 columns
	case catch2HeaderSite:
		p.state = catch2HeaderDots
	case catch2HeaderDots:
		p.state = catch2Body
		if !isRuleOf(l, '.') {
			p.line(l)
		}
	}
}

// endHeader takes the test case and its sections from the header read.
func (p *catch2Parser) endHeader() {
	if len(p.header) == 0 {
		return
	}
	p.current = strings.TrimSpace(p.header[0])
	var sections []string
	for _, s := range p.header[1:] {
		sections = append(sections, strings.TrimSpace(s))
	}
	p.section = strings.Join(sections, " / ")
	p.run.ensure()
}

// assertion records an assertion's result under the current test case.
func (p *catch2Parser) assertion(m []string) {
	if p.current == "" {
		return
	}
	st := Passed
	switch m[3] {
	case "FAILED":
		st = Failed
	case "SKIPPED":
		st = Skipped
	}
	c := p.run.lookup(FormatCatch2, p.current)
	if c == nil {
		c = p.run.result(FormatCatch2, p.current, st)
	}
	if st == Passed {
		return // -s's PASSED, [!shouldfail]'s "FAILED - but was ok": the case is named, its status stands
	}
	if c.Status == Passed || c.Status == Skipped && st == Failed {
		c.Status = st
	}
	if c.File == "" && st == Failed {
		c.File = m[1]
		c.Line, _ = strconv.Atoi(m[2])
	}
	p.failing = c
	p.detail.Reset()
	if p.section != "" {
		p.detail.WriteString("in section " + p.section + ":\n")
	}
}

// endDetail ends an assertion's detail: the lines after its site, up to a
// blank line.
func (p *catch2Parser) endDetail() {
	c := p.failing
	if c == nil {
		return
	}
	p.failing = nil
	d := strings.TrimSpace(p.detail.String())
	if _, sig, ok := strings.Cut(d, "due to a fatal error condition:\n"); ok {
		// "SIGSEGV - Segmentation violation signal"
		c.Status = Crashed
		c.Message = bound(strings.TrimSpace(sig))
		return
	}
	if c.Status == Skipped {
		d = strings.TrimSpace(strings.TrimPrefix(d, "explicitly with message:"))
	}
	if c.Message == "" {
		c.Message = bound(d)
	} else if c.Status != Crashed {
		c.Message = bound(c.Message + "\n" + d)
	}
}

// summaryLine reads the summary.
func (p *catch2Parser) summaryLine(l string) {
	if l == "No tests ran" {
		p.run.summarized(0)
		ts := p.run.rep.summary()
		addTally(&ts.Total, 0)
		ts.addLine(l)
		return
	}
	if m := catch2AllPassedRE().FindStringSubmatch(l); m != nil {
		n := tallyCount(m[2])
		p.run.summarized(n)
		ts := p.run.rep.summary()
		addTally(&ts.Total, n)
		addTally(&ts.Passed, n)
		addTally(&ts.Failed, 0)
		ts.addLine(l)
		return
	}
	m := catch2TallyRE().FindStringSubmatch(l)
	if m == nil {
		if strings.HasPrefix(l, "assertions: ") && p.run.summary {
			p.run.rep.summary().addLine(l)
		}
		return
	}
	total := tallyCount(m[1])
	var passed, failed, skipped int
	for _, col := range strings.Split(m[2], " | ")[1:] {
		n, word, _ := strings.Cut(col, " ")
		k := tallyCount(n)
		switch word {
		case "passed", "failed as expected":
			passed += k
		case "failed":
			failed += k
		case "skipped":
			skipped += k
		}
	}
	p.run.summarized(passed)
	ts := p.run.rep.summary()
	addTally(&ts.Total, total)
	addTally(&ts.Passed, passed)
	addTally(&ts.Failed, failed)
	addTally(&ts.Skipped, skipped)
	ts.addLine(l)
	if failed > 0 {
		ts.Verdict = "test cases failed"
	}
}
