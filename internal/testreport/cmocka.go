package testreport

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// FormatCmocka is the output of a program run by cmocka (its default
// message output, CMOCKA_MESSAGE_OUTPUT=STDOUT).
const FormatCmocka = "cmocka"

var (
	// "[==========] Running 4 test(s).", "[==========] tests: Running 4 test(s)."
	// (cmocka 1.1.6 on names the group).
	cmockaStartRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[=+\] (?:(.+): )?Running (\d+) test\(s\)\.`)
	})
	// "[==========] 4 test(s) run."
	cmockaRunRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[=+\] (?:.+: )?(\d+) test\(s\) run\.`)
	})
	// "[ RUN      ] test_add", "[       OK ] test_add", "[  FAILED  ] test_fault",
	// "[  ERROR   ] --- 0x3 != 0x2", "[   LINE   ] --- cmocka_t.c:12: error: Failure!",
	// "[  PASSED  ] 3 test(s)."
	cmockaLineRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[ *(RUN|OK|FAILED|SKIPPED|ERROR|LINE|PASSED) *\] (.*)$`)
	})
	// "cmocka_t.c:12: error: Failure!"
	cmockaSiteRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.+?):(\d+): (.*)$`)
	})
	// The summary's counts: "3 test(s).", "1 test(s), listed below:"
	cmockaCountRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\d+) test\(s\)[.,]`)
	})
)

// cmockaParser reads cmocka's output: per group, "[==========] Running N
// test(s).", then for each test "[ RUN      ] NAME" and its result, "[
// OK ]", "[  FAILED  ]" (after "[  ERROR   ] --- MESSAGE" and "[   LINE   ]
// --- FILE:LINE: error: Failure!") or "[  SKIPPED ]"; then the summary,
// "[==========] N test(s) run.", "[  PASSED  ] N test(s).", and the failed
// and skipped tests listed again.
//
// A signal cmocka catches (SIGSEGV, SIGILL, SIGFPE, SIGBUS, SIGSYS) fails
// the test, "Test failed with exception: Segmentation fault(11)": the test
// crashed and the run goes on. abort() and exit() end the program under
// the test: its "[ RUN      ]" line has no result, and the run was cut
// short there.
type cmockaParser struct {
	f         *frameworkRun
	group     string // the group's name; FormatCmocka when cmocka does not print it
	inSummary bool   // after "N test(s) run.": the lines list tests again
	current   string // the test whose lines these are
	errs      []string
	file      string
	lineNo    int
	crashed   bool
}

func parseCmocka(r io.Reader) (*Report, error) {
	p := &cmockaParser{f: newFrameworkRun(FormatCmocka, "cmocka"), group: FormatCmocka}
	if err := lines(r, p.line); err != nil {
		return nil, err
	}
	return p.f.done(), nil
}

func (p *cmockaParser) line(line string) {
	if m := cmockaStartRE().FindStringSubmatch(line); m != nil {
		p.group = FormatCmocka
		if m[1] != "" {
			p.group = m[1]
		}
		p.f.begin(p.group)
		p.inSummary = false
		p.clear("")
		return
	}
	if m := cmockaRunRE().FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		ts := p.f.rep.summary()
		addTally(&ts.Total, n)
		addTally(&ts.Passed, 0)
		addTally(&ts.Failed, 0)
		addTally(&ts.Skipped, 0)
		ts.addLine(line)
		p.f.summarized(-1)
		p.inSummary = true
		return
	}
	m := cmockaLineRE().FindStringSubmatch(line)
	if m == nil {
		p.f.died(line)
		return
	}
	word, rest := m[1], strings.TrimSpace(m[2])
	if p.inSummary {
		p.summaryLine(line, word, rest)
		return
	}
	switch word {
	case "RUN":
		p.clear(rest)
		p.f.start(p.group, rest)
	case "ERROR":
		if msg, ok := strings.CutPrefix(rest, "--- "); ok {
			if strings.HasPrefix(msg, "Test failed with exception: ") {
				p.crashed = true
			}
			p.errs = append(p.errs, msg)
			return
		}
		// "[  ERROR   ] test_x": a setup or teardown that failed.
		p.finish(rest, Errored)
	case "LINE":
		if s := cmockaSiteRE().FindStringSubmatch(strings.TrimPrefix(rest, "--- ")); s != nil && p.file == "" {
			p.file = s[1]
			p.lineNo, _ = strconv.Atoi(s[2])
		}
	case "OK":
		p.finish(rest, Passed)
	case "FAILED":
		p.finish(rest, Failed)
	case "SKIPPED":
		p.finish(rest, Skipped)
	}
}

// finish records the result of test name with the lines read for it.
func (p *cmockaParser) finish(name string, st Status) {
	c := p.f.result(p.group, name, st)
	if name == p.current {
		if st == Failed && p.crashed {
			c.Status = Crashed
		}
		if len(p.errs) > 0 {
			c.Message = bound(strings.Join(p.errs, "\n"))
		}
		c.File, c.Line = p.file, p.lineNo
	}
	p.clear("")
}

func (p *cmockaParser) clear(current string) {
	p.current, p.errs, p.file, p.lineNo, p.crashed = current, nil, "", 0, false
}

// summaryLine reads the summary's counts; the tests it lists again are
// the ones already read.
func (p *cmockaParser) summaryLine(line, word, rest string) {
	m := cmockaCountRE().FindStringSubmatch(rest)
	if m == nil {
		return
	}
	n, _ := strconv.Atoi(m[1])
	ts := p.f.rep.summary()
	switch word {
	case "PASSED":
		addTally(&ts.Passed, n)
	case "FAILED":
		addTally(&ts.Failed, n)
		ts.Verdict = "tests failed"
	case "SKIPPED":
		addTally(&ts.Skipped, n)
	default:
		return
	}
	ts.addLine(line)
}
