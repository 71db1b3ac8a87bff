package testreport

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/textclip"
)

// FormatMeson is the console output of `meson test`: one line per test as
// it ends, "2/5 seg  FAIL  0.02s   killed by signal 11 SIGSEGV", and the
// tally that closes the run ("Ok: 1", "Fail: 3"…). [ParseMesonTestlog]
// reads the same run's machine log, meson-logs/testlog.json.
const FormatMeson = "meson"

var (
	// A test's result line: "2/5 seg  FAIL  0.02s   killed by signal 11
	// SIGSEGV", "3/3 tap  OK  0.01s   2 subtests passed". The name is
	// padded to a column; it may hold spaces.
	mesonResultRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(\d+)/(\d+) (.+?)\s+(OK|FAIL|SKIP|TIMEOUT|INTERRUPT|EXPECTEDFAIL|UNEXPECTEDPASS|ERROR|IGNORED)\s+(\d+\.\d+)s(?:\s+(.*?))?\s*$`)
	})
	// A test starting under -v: "5/9 hang  RUNNING".
	mesonRunningRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(\d+)/(\d+) (.+?)\s+RUNNING\s*$`)
	})
	// A line of the closing tally: "Ok:                 1", "Expected Fail:      0".
	mesonTallyRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(Ok|Expected Fail|Fail|Unexpected Pass|Skipped|Ignored|Timeout):\s+(\d+)\s*$`)
	})
	// A terminal's progress line, overwritten by what follows its "\r":
	// "[9/9] 🌑 hang   3/200.0s", "[1-2/9] 🌑 seg   0/30s".
	mesonProgressRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[\d+(?:-\d+)?/(\d+)\] \S+ (.+?)\s+\d+(?:/\s*[\d.]+)?s(?:\s{3}.*)?$`)
	})
	// A bad subtest of a TAP or Rust test, which -v and --print-errorlogs
	// print under the test's number: "▶ 3/3 - reads body FAIL".
	mesonSubtestRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:▶ |\| )(\d+)/\d+ (.+?)\s+(FAIL|ERROR|TIMEOUT|INTERRUPT|UNEXPECTEDPASS)\s*$`)
	})
	// meson's words for a test's exit: "killed by signal 11 SIGSEGV", and,
	// for an exit status above 128 (a shell between meson and the test may
	// have turned a signal into one), "(exit status 139 or signal 11 SIGSEGV)".
	mesonKilledRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`killed by signal (\d+) (\w+)|\(exit status \d+ or signal (\d+) (\w+)\)`)
	})
)

// maxMesonRunning bounds the tests kept as started without a result.
const maxMesonRunning = 1024

// parseMeson reads the console output of `meson test`, in each of its
// shapes: the default (a line per finished test, then the command of a
// failed one after ">>> "), --print-errorlogs and -v (a test's output
// between a scissors line, "――― ✀ ―――" or "--- 8< ---", and a line of
// dashes: after its result line, or before it when -v runs one test at a
// time), with "Summary of Failures:" repeating the failed tests' lines
// before the tally (read once), and a terminal's progress lines.
//
// A name is kept as meson prints it, which is what testlog.json names the
// test too: "parse", "suites:unit / parse" (meson before 1.10, when the run
// has several suites), "unit - suites:parse" (1.10 on). Case.Suite is the
// part printed before the test's own name ("suites:unit", "unit"; a
// project's name), FormatMeson when there is none.
//
// A test killed by a signal is crashed, unless meson killed it (TIMEOUT,
// INTERRUPT: errored; a TIMEOUT is of Kind KindTimeout, as CTest's, since
// the verdict names a test stopped at its runner's limit). A failed test's
// output, when shown, gives its message its first failure lines, and a
// sanitizer's report makes it crashed as under CTest. EXPECTEDFAIL passes
// and UNEXPECTEDPASS fails, as meson counts them (and automake's harness
// XFAIL and XPASS).
//
// A run is complete with meson's tally and a result for each of its M
// tests: a run whose tally never came (meson killed, the log cut) was cut
// short, naming the test -v showed RUNNING or a terminal's progress line
// showed, and so is one whose tally came with fewer results than M
// (--maxfail, a cancelled run).
func parseMeson(r io.Reader) (*Report, error) {
	p := &mesonParser{rep: &Report{Format: FormatMeson}, last: -1}
	if err := lines(r, p.line); err != nil {
		return nil, err
	}
	p.endRun()
	return p.rep, nil
}

// mesonParser reads meson test's output line by line.
type mesonParser struct {
	rep *Report
	run mesonRun
	// failures is set in "Summary of Failures:", whose lines repeat
	// results already read.
	failures bool
	// block is the output of a test being read (nil outside one); owner is
	// the index in rep.Cases of its test, -1 for the RUNNING test whose
	// result line follows the block (-v, one test at a time).
	block *testOutput
	owner int
	// last is the index of the last result line's case, -1 after a RUNNING
	// line; lastRunning names the test of that RUNNING line.
	last        int
	lastRunning string
	// direct is the output of the test named directName, read before its
	// result line.
	direct     *testOutput
	directName string
	subtests   map[int][]string // bad subtest lines by test number
	errorNext  bool             // "Meson test encountered an error:": the next line says what
}

// mesonRun is one `meson test` run of the output (a log may hold several).
type mesonRun struct {
	started  bool
	total    int            // M of the "N/M" lines
	got      int            // result lines read
	seen     map[int]string // test number -> name of its result line
	tally    bool           // the closing tally came
	running  []string       // tests started (-v) without a result yet
	progress string         // the test the last progress line showed running
}

func (p *mesonParser) line(line string) {
	// A terminal's progress line ends in "\r" and what follows overwrites it.
	for {
		seg, rest, ok := strings.Cut(line, "\r")
		if !ok {
			break
		}
		p.progressLine(seg)
		line = rest
	}
	if p.block != nil {
		if isDashLine(line) {
			p.endBlock()
			return
		}
		p.block.feed(line)
		return
	}
	if isScissorsLine(line) {
		p.block, p.owner = &testOutput{}, p.last
		return
	}
	if p.progressLine(line) {
		return
	}
	if m := mesonResultRE().FindStringSubmatch(line); m != nil {
		p.result(m)
		return
	}
	if m := mesonRunningRE().FindStringSubmatch(line); m != nil {
		p.running(m)
		return
	}
	if m := mesonTallyRE().FindStringSubmatch(line); m != nil {
		p.tally(line, m)
		return
	}
	if m := mesonSubtestRE().FindStringSubmatch(line); m != nil {
		p.subtest(m)
		return
	}
	p.other(line)
}

// progressLine records the test a terminal's progress line shows running.
func (p *mesonParser) progressLine(seg string) bool {
	m := mesonProgressRE().FindStringSubmatch(seg)
	if m == nil {
		return false
	}
	if p.run.tally {
		p.newRun(0) // a test of the next run is running
	}
	p.run.started = true
	p.run.total, _ = strconv.Atoi(m[1])
	p.run.progress = m[2]
	return true
}

// isScissorsLine is the line above a test's output: "――― ✀  ―――", or
// "--- 8< ---" where the console cannot print those.
func isScissorsLine(l string) bool {
	l = strings.TrimSpace(l)
	for _, mark := range []string{" ✀ ", " 8< "} {
		if before, after, ok := strings.Cut(l, mark); ok {
			return isDashLine(before) && isDashLine(strings.TrimSpace(after))
		}
	}
	return false
}

// isDashLine is a line of dashes ("―" or "-"), the end of a test's output.
func isDashLine(l string) bool {
	l = strings.TrimSpace(l)
	n := 0
	for _, r := range l {
		if r != '―' && r != '-' {
			return false
		}
		n++
	}
	return n >= 10
}

// endBlock gives a test's output to its test: the one whose result line
// came before it, or the one whose result line comes next.
func (p *mesonParser) endBlock() {
	out := p.block
	p.block = nil
	if p.owner >= 0 {
		out.apply(&p.rep.Cases[p.owner])
		return
	}
	p.direct, p.directName = out, p.lastRunning
}

// newRun ends the run being read when a test line cannot belong to it: the
// run's tally came, or the test's number was read already (a second
// `meson test` after one cut short).
func (p *mesonParser) newRun(num int) {
	if _, seen := p.run.seen[num]; p.run.tally || seen {
		p.endRun()
		p.run = mesonRun{}
	}
}

// result records a test's result line.
func (p *mesonParser) result(m []string) {
	if p.failures {
		return // the summary repeating a result
	}
	num, _ := strconv.Atoi(m[1])
	total, _ := strconv.Atoi(m[2])
	name := m[3]
	p.newRun(num)
	r := &p.run
	r.started, r.total = true, total
	r.got++
	if r.seen == nil {
		r.seen = map[int]string{}
	}
	r.seen[num] = name
	if i := slices.Index(r.running, name); i >= 0 {
		r.running = slices.Delete(r.running, i, i+1)
	}
	if r.progress == name {
		r.progress = ""
	}
	secs, _ := strconv.ParseFloat(m[5], 64)
	c := mesonCase(name, m[4], m[6], time.Duration(secs*float64(time.Second)))
	if sub := p.subtests[num]; len(sub) > 0 {
		out := &testOutput{}
		for _, l := range sub {
			out.feed(l)
		}
		out.apply(&c)
		delete(p.subtests, num)
	}
	if p.direct != nil && p.directName == name {
		p.direct.apply(&c)
	}
	p.direct = nil
	p.rep.Cases = append(p.rep.Cases, c)
	p.last = len(p.rep.Cases) - 1
}

// running records a test -v shows starting.
func (p *mesonParser) running(m []string) {
	num, _ := strconv.Atoi(m[1])
	total, _ := strconv.Atoi(m[2])
	if p.failures {
		return
	}
	p.newRun(num)
	p.run.started, p.run.total = true, total
	if len(p.run.running) < maxMesonRunning {
		p.run.running = append(p.run.running, m[3])
	}
	p.last, p.lastRunning = -1, m[3]
}

// subtest keeps a bad subtest's line for its test's message.
func (p *mesonParser) subtest(m []string) {
	num, _ := strconv.Atoi(m[1])
	if p.subtests == nil {
		p.subtests = map[int][]string{}
	}
	if l := p.subtests[num]; len(l) < maxOutputLines && (len(l) > 0 || len(p.subtests) < maxMesonRunning) {
		p.subtests[num] = append(l, "subtest "+strings.TrimSpace(m[2])+": "+m[3])
	}
}

// tally adds a line of the closing tally. Since meson 1.8 the tally leaves
// out the kinds it counted none of; Ok and Fail are always there.
func (p *mesonParser) tally(line string, m []string) {
	p.failures = false
	p.run.tally = true
	n, _ := strconv.Atoi(m[2])
	ts := p.rep.summary()
	addTally(&ts.Total, n)
	addTally(&ts.Passed, 0)
	addTally(&ts.Failed, 0)
	addTally(&ts.Skipped, 0)
	switch m[1] {
	case "Ok", "Expected Fail":
		addTally(&ts.Passed, n)
	case "Skipped", "Ignored":
		addTally(&ts.Skipped, n)
	default: // Fail (which counts ERROR and INTERRUPT too), Unexpected Pass, Timeout
		addTally(&ts.Failed, n)
		if n > 0 {
			ts.Verdict = "tests failed"
		}
	}
	ts.addLine(strings.TrimSpace(line))
}

// other reads the lines around the tests: the "Summary of Failures:"
// header, and what stopped a run before its tests (meson rebuilds what
// the tests need first; a compile error there ends with "Could not
// rebuild DIR" and exit status 125).
func (p *mesonParser) other(line string) {
	t := strings.TrimSpace(line)
	switch {
	case t == "":
	case t == "Summary of Failures:":
		p.failures = true
	case p.errorNext:
		p.errorNext = false
		p.rep.RunnerErrors = addDistinct(p.rep.RunnerErrors, "meson test encountered an error: "+textclip.String(t, maxOutputLine))
	case t == "Meson test encountered an error:":
		p.errorNext = true
	case strings.HasPrefix(t, "Could not rebuild "),
		// meson's own fatal errors; once tests run, "ERROR: Unknown TAP
		// output lines…" is a TAP test's warning.
		!p.run.started && strings.HasPrefix(t, "ERROR: "):
		p.rep.RunnerErrors = addDistinct(p.rep.RunnerErrors, textclip.String(t, maxOutputLine))
	case !p.run.started && isBuildError(t):
		p.rep.BuildErrors = addDistinct(p.rep.BuildErrors, textclip.String(t, maxOutputLine))
	}
}

// endRun records a run that did not finish: tests started without a
// result, no tally, or fewer results than tests.
func (p *mesonParser) endRun() {
	r := &p.run
	if !r.started {
		return
	}
	how := fmt.Sprintf("the output ended before meson's summary (%d of %d tests reported)", r.got, r.total)
	if r.tally {
		how = "no result before meson's summary"
	}
	running := r.running
	if len(running) == 0 && !r.tally && r.progress != "" {
		running = []string{r.progress}
	}
	for _, name := range running {
		p.rep.Cases = append(p.rep.Cases, Case{Suite: mesonSuite(name), Name: name, Status: Errored,
			Message: msgEnded + ": " + how})
		p.rep.cutShort(FormatMeson, name, how)
	}
	switch {
	case len(running) == 0 && !r.tally:
		p.rep.cutShort(FormatMeson, "", how)
	case r.tally && r.got+len(running) < r.total:
		p.rep.cutShort(FormatMeson, "", fmt.Sprintf("%d of %d tests reported no result", r.total-r.got-len(running), r.total))
	}
}

// mesonCase is a test's case from meson's result word and the details
// meson gives of its exit ("killed by signal 6 SIGABRT", "exit status 1",
// "2 subtests passed").
func mesonCase(name, result, detail string, d time.Duration) Case {
	c := Case{Suite: mesonSuite(name), Name: name, Duration: d}
	detail = strings.TrimSpace(detail)
	withDetail := func(s string) string {
		switch {
		case detail == "":
			return s
		case strings.HasPrefix(detail, "("): // "(exit status 143 or signal 15 SIGTERM)"
			return s + " " + detail
		}
		return s + " (" + detail + ")"
	}
	switch result {
	case "OK", "EXPECTEDFAIL":
		c.Status = Passed
	case "SKIP":
		c.Status = Skipped
	case "IGNORED":
		c.Status, c.Message = Skipped, "ignored: its results were not read (run interactively)"
	case "TIMEOUT":
		// meson stopped it at the test's timeout: (times the multiplier),
		// sending SIGTERM, then SIGKILL, which the detail then names.
		c.Status, c.Kind = Errored, KindTimeout
		c.Message = withDetail(fmt.Sprintf(msgTimedOut+" %.2f s", d.Seconds()))
	case "INTERRUPT":
		c.Status, c.Message = Errored, withDetail(msgInterrupted)
	case "UNEXPECTEDPASS":
		c.Status, c.Message = Failed, "unexpected pass: the test is expected to fail (should_fail)"
	case "FAIL", "ERROR":
		switch {
		case mesonCrashed(detail):
			c.Status, c.Message = Crashed, detail
		case result == "ERROR":
			c.Status, c.Message = Errored, withDetail("error")
		case detail == "":
			c.Status, c.Message = Failed, "failed"
		default:
			c.Status, c.Message = Failed, detail
		}
	default:
		c.Status, c.Message = Errored, withDetail("meson result "+result)
	}
	return c
}

// The messages of the tests meson killed, or that did not finish.
const (
	msgTimedOut    = "timed out after"
	msgInterrupted = "interrupted"
	msgEnded       = "meson ended before the test finished"
)

// mesonKilled reports whether meson killed c's test (a timeout, an
// interrupted run), or the test did not finish: a signal in its output's
// evidence is then meson's doing, not the test's.
func mesonKilled(c *Case) bool {
	return c.Status == Errored && (strings.HasPrefix(c.Message, msgTimedOut) ||
		strings.HasPrefix(c.Message, msgInterrupted) || strings.HasPrefix(c.Message, msgEnded))
}

// mesonCrashed reports whether meson's details say a signal killed the
// test: "killed by signal N" (meson saw the signal), or an exit status
// 128+N of a signal that dumps core.
func mesonCrashed(detail string) bool {
	m := mesonKilledRE().FindStringSubmatch(detail)
	if m == nil {
		return false
	}
	if m[1] != "" {
		return true
	}
	n, _ := strconv.Atoi(m[3])
	return coreSignals[n] != ""
}

// mesonSuite is the part of a name meson prints before the test's own
// name: "suites:unit" of "suites:unit / parse", "unit" of "unit -
// suites:parse", "suites" of "suites:parse"; FormatMeson when there is
// none. It is a prefix of the name.
func mesonSuite(name string) string {
	if s, _, ok := strings.Cut(name, " / "); ok {
		return s
	}
	if s, rest, ok := strings.Cut(name, " - "); ok {
		if prj, _, ok := strings.Cut(rest, ":"); ok && prj != "" && !strings.Contains(prj, " ") {
			return s
		}
	}
	if prj, _, ok := strings.Cut(name, ":"); ok && prj != "" && !strings.Contains(prj, " ") {
		return prj
	}
	return FormatMeson
}
