package testreport

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FormatCriterion is the output of a program built with the Criterion
// test framework (its console reporter).
const FormatCriterion = "criterion"

var (
	// "[RUN ] math::add", "[PASS] math::add: (0.00s)", "[FAIL] math::fault: CRASH!",
	// "[SKIP] strings::skipped: Test is disabled", "[----] criterion_t.c:7: Assertion Failed",
	// "[====] Running 3 tests from math:", "[ERR ] …", "[WARN] …"
	criterionLineRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[(RUN |PASS|FAIL|SKIP|----|====|ERR |WARN)\] ?(.*)$`)
	})
	// "math::fault: (0.00s)", "math::fault: CRASH!", "math::add"
	criterionTestRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([^\s:]+)::(\S+?)(?:: (.*))?$`)
	})
	// "(0.00s)", "Timed out. (1.00s)"
	criterionTimeRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\((\d+\.\d+)s\)$`)
	})
	// "criterion_t.c:7: Assertion Failed"
	criterionSiteRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\S.*?):(\d+): (.*)$`)
	})
	// "Synthesis: Tested: 4 | Passing: 3 | Failing: 1 | Crashing: 1 "
	criterionSynthesisRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)`)
	})
	// "Warning! The test `math::fault` crashed during its setup or teardown."
	criterionWarnRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("The test `([^`:]+)::([^`]+)` (crashed|exited) during its setup or teardown")
	})
)

// criterionParser reads Criterion's console output. By default it prints
// the failed tests and the summary, "[====] Synthesis: Tested: N |
// Passing: P | Failing: F | Crashing: C"; with --verbose each test's
// "[RUN ] SUITE::TEST" and its "[PASS]", "[FAIL]" or "[SKIP]" line too. A
// failed assertion's "[----] FILE:LINE: Assertion Failed" and message
// lines come before its test's "[FAIL]".
//
// Criterion runs each test in a process of its own: a signal in a test is
// "[----] FILE:LINE: Unexpected signal caught below this line!" (the last
// assertion's site) then "[FAIL] SUITE::TEST: CRASH!", and the run goes on;
// a test's exit(0) is a pass to Criterion. The run is cut short when the
// runner itself ends before its summary; under --verbose the tests that
// showed "[RUN ]" without a result are named.
type criterionParser struct {
	f      *frameworkRun
	msg    []string // the "[----]" lines since the last result
	file   string
	lineNo int
}

func parseCriterion(r io.Reader) (*Report, error) {
	p := &criterionParser{f: newFrameworkRun(FormatCriterion, "Criterion")}
	p.f.namedPassMeansAll = true
	p.f.quietWhy = "Criterion names only the failed tests unless run with --verbose"
	if err := lines(r, p.line); err != nil {
		return nil, err
	}
	return p.f.done(), nil
}

func (p *criterionParser) line(line string) {
	m := criterionLineRE().FindStringSubmatch(line)
	if m == nil {
		p.f.died(line)
		return
	}
	word, rest := m[1], strings.TrimRight(m[2], " ")
	switch word {
	case "----":
		p.detail(rest)
	case "====":
		if s := criterionSynthesisRE().FindStringSubmatch(rest); s != nil {
			p.synthesis(line, s)
		}
	case "ERR ":
		p.f.rep.RunnerErrors = addDistinct(p.f.rep.RunnerErrors, rest)
	case "WARN":
		if w := criterionWarnRE().FindStringSubmatch(rest); w != nil {
			c := p.f.result(w[1], w[2], "")
			c.Status, c.Message = Crashed, bound(rest)
			if w[3] == "exited" {
				c.Status = Errored
			}
		}
	default:
		if t := criterionTestRE().FindStringSubmatch(rest); t != nil {
			p.test(word, t[1], t[2], t[3])
		}
	}
}

// detail reads a "[----]" line: the version line that starts a verbose
// run, or a failure's site and message.
func (p *criterionParser) detail(rest string) {
	if strings.HasPrefix(rest, "Criterion v") {
		p.f.begin("")
		return
	}
	if s := criterionSiteRE().FindStringSubmatch(rest); s != nil && !strings.HasPrefix(rest, " ") {
		if p.file == "" {
			p.file = s[1]
			p.lineNo, _ = strconv.Atoi(s[2])
		}
		p.msg = append(p.msg, s[3])
		return
	}
	if t := strings.TrimSpace(rest); t != "" && len(p.msg) > 0 {
		p.msg = append(p.msg, t)
	}
}

func (p *criterionParser) test(word, suite, name, rest string) {
	if word == "RUN " {
		p.f.start(suite, name)
		return
	}
	if p.f.open && !p.f.summary && p.f.lookup(suite, name) != nil {
		p.f.begin("") // a test's result again: the next program's
	}
	c := p.f.result(suite, name, Passed)
	if d := criterionTimeRE().FindStringSubmatch(rest); d != nil {
		secs, _ := strconv.ParseFloat(d[1], 64)
		c.Duration = time.Duration(secs * float64(time.Second))
	}
	switch word {
	case "SKIP":
		c.Status, c.Message = Skipped, bound(rest)
	case "FAIL":
		c.Status = Failed
		msg := strings.Join(p.msg, "\n")
		switch {
		case strings.HasPrefix(rest, "CRASH!"):
			c.Status = Crashed
			msg = strings.TrimSpace("CRASH! " + msg)
		case strings.HasPrefix(rest, "Timed out."):
			c.Status, c.Kind = Errored, KindTimeout
			msg = strings.TrimSpace(rest + " " + msg)
		}
		c.Message = bound(msg)
		c.File, c.Line = p.file, p.lineNo
	}
	p.msg, p.file, p.lineNo = nil, "", 0
}

func (p *criterionParser) synthesis(line string, s []string) {
	n := func(i int) int { v, _ := strconv.Atoi(s[i]); return v }
	// Tested leaves out the tests skipped ("[SKIP]", --verbose only),
	// which are cases here.
	skipped := 0
	for _, c := range p.f.rep.Cases[p.f.first:] {
		if c.Status == Skipped {
			skipped++
		}
	}
	ts := p.f.rep.summary()
	addTally(&ts.Total, n(1)+skipped)
	addTally(&ts.Skipped, skipped)
	addTally(&ts.Passed, n(2))
	addTally(&ts.Failed, n(3))
	ts.addLine(strings.TrimSpace(line))
	p.f.summarized(n(2))
}
