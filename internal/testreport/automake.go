package testreport

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// FormatAutomake is the output of automake's parallel test harness
// (`make check`): one "PASS: name" line per test, the "# TOTAL:" summary.
const FormatAutomake = "automake"

var (
	// "FAIL: test-version", "PASS: tests/t.tap 3 - reads"
	automakeResultRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(PASS|FAIL|XFAIL|XPASS|SKIP|ERROR): (\S+)(.*)$`)
	})
	// "# TOTAL: 2", "# FAIL:  1"
	automakeTallyRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR):\s+(\d+)$`)
	})
	// The serial harness: "All 3 tests passed", "1 of 3 tests failed".
	automakeSerialRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:All (\d+) tests passed|(\d+) of (\d+) tests failed)`)
	})
	// "make[2]: Entering directory '/src/tests'"
	makeDirRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^g?make(?:\[\d+\])?: (Entering|Leaving) directory ['` + "`" + `](.*)'$`)
	})
	// The shell of automake's test-driver reporting the signal that killed
	// a test: "../config/test-driver: line 112: 28854 Segmentation fault
	// (core dumped) "$@" >> "$log_file" 2>&1".
	driverSignalRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`test-driver: line \d+: +\d+ (.+?)\s+"\$@"`)
	})
)

// parseAutomake reads `make check` output of automake's test harness. A
// test's own output is not in it: automake keeps it in NAME.log beside the
// test (see Case.LogFile and ReadTestLogs). What the log does show of a
// crash is the test-driver shell's line naming the signal, printed just
// before the test's FAIL line. A run is complete with the harness's summary.
// automakeCase is the case of a result line, "FAIL: t (exit status: 1)";
// dirs are the directories make entered, signal the driver's report of a
// signal that came before it.
func automakeCase(m []string, dirs []string, signal string) Case {
	c := Case{Suite: FormatAutomake, Name: m[2], Status: automakeStatus(m[1])}
	if rest := strings.TrimSpace(m[3]); rest != "" {
		c.Message = rest // a TAP test's number and description
	}
	// automake's log of test T is T.log, or with T's extension
	// (one of TEST_EXTENSIONS, .test by default) replaced by .log.
	c.LogFile = c.Name + ".log"
	if n := len(dirs); n > 0 && filepath.IsAbs(dirs[n-1]) {
		c.LogFile = filepath.Join(dirs[n-1], c.LogFile)
	}
	if signal != "" && (c.Status == Failed || c.Status == Errored) {
		c.Status, c.Message, c.bySignalLine = Crashed, signal, true
	}
	return c
}

// automakeTally adds a line of the test-suite summary, "# FAIL:  2".
func automakeTally(ts *ToolSummary, line string, m []string) {
	n, _ := strconv.Atoi(m[2])
	switch m[1] {
	case "TOTAL":
		addTally(&ts.Total, n)
	case "PASS", "XFAIL":
		addTally(&ts.Passed, n)
	case "SKIP":
		addTally(&ts.Skipped, n)
	case "FAIL", "XPASS", "ERROR":
		addTally(&ts.Failed, n)
	}
	ts.addLine(line)
	if m[1] != "TOTAL" && m[1] != "PASS" && m[1] != "SKIP" && m[1] != "XFAIL" && n > 0 {
		ts.Verdict = "tests failed"
	}
}

func parseAutomake(r io.Reader) (*Report, error) {
	rep := &Report{Format: FormatAutomake}
	var dirs []string
	signal := "" // the driver's signal line, for the next failed test
	summary := false
	var own testLogSection // a test's own log, copied in by ReadTestLogs
	// The serial harness prints a test's own output before its result
	// line; the parallel one keeps it in the test's log.
	var out programOutput
	err := lines(r, func(line string) {
		if own.line(line, rep) {
			return
		}
		if !automakeResultRE().MatchString(line) {
			out.line(line)
			if ev := crashEvidence(line); ev != "" && signal == "" && !makeErrorRE().MatchString(line) {
				signal = ev // a shell's "line 6: 27066 Segmentation fault (core dumped) ${dir}$tst"
			}
		}
		if m := makeDirRE().FindStringSubmatch(line); m != nil {
			if m[1] == "Entering" {
				dirs = append(dirs, m[2])
			} else if n := len(dirs); n > 0 {
				dirs = dirs[:n-1]
			}
			return
		}
		if m := driverSignalRE().FindStringSubmatch(line); m != nil {
			signal = strings.Join(strings.Fields(m[1]), " ")
			return
		}
		if m := automakeResultRE().FindStringSubmatch(line); m != nil {
			c := automakeCase(m, dirs, signal)
			passed := c.Status == Passed
			if cut := c.adoptFramework(out.framework(), out.truncated); cut != nil && passed {
				rep.cutShort(c.Suite, c.Name, cut.afterExitZero())
			}
			rep.Cases = append(rep.Cases, c)
			signal, out = "", programOutput{}
			return
		}
		if m := automakeTallyRE().FindStringSubmatch(line); m != nil {
			summary = true
			automakeTally(rep.summary(), line, m)
			return
		}
		if m := automakeSerialRE().FindStringSubmatch(line); m != nil {
			summary = true
			rep.summary().addLine(line)
		}
	})
	if err != nil {
		return nil, err
	}
	if !summary && len(rep.Cases) > 0 {
		rep.cutShort(FormatAutomake, "", "the output ended before the test-suite summary")
	}
	return rep, nil
}

// automakeStatus maps the harness's result words. An expected failure
// (XFAIL) is a success and an unexpected pass (XPASS) a failure, as
// automake itself counts them.
func automakeStatus(word string) Status {
	switch word {
	case "PASS", "XFAIL":
		return Passed
	case "SKIP":
		return Skipped
	case "ERROR":
		return Errored
	}
	return Failed
}

// maxTestLog bounds how much of one test's own log ReadTestLogs reads.
const maxTestLog = 1 << 20

// exitStatusRE is the test-driver's last line in a test's log: "FAIL
// test-version (exit status: 139)".
var exitStatusRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\(exit status: (\d+)\)\s*$`)
})

// coreSignals name the signals whose default action dumps core, by number
// (Linux), as a shell's exit status 128+N shows them.
var coreSignals = map[int]string{4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 11: "SIGSEGV", 31: "SIGSYS"}

// ReadTestLogs reads the own logs of the failed tests (automake's NAME.log,
// relative paths taken in dir) for what the run's output did not show: a
// test killed by a signal (its exit status 128+N), a sanitizer's report, an
// assertion. Such a test becomes crashed, with the evidence as its message
// and the report's first project frame as its location. Each log that told
// more is copied to w (nil: nowhere) in a section the automake parser
// reads back, so that the run's log says what the run found. read reads up
// to max bytes of a log (nil: this machine's files); at most maxLogs logs
// are read, and it returns how many failed tests' logs were left unread.
func (r *Report) ReadTestLogs(dir string, read LogReader, maxLogs int, w io.Writer) (unread int) {
	if read == nil {
		read = readLocalLog
	}
	changed := false
	// The failed tests' logs first; then, while the bound allows, the
	// passed ones', whose framework may say the program ended early
	// (exit 0 in a test) or that a test failed (CUnit exits 0).
	for _, failed := range []bool{true, false} {
		for i := range r.Cases {
			c := &r.Cases[i]
			bad := c.Status == Failed || c.Status == Errored || c.Status == Crashed
			if c.LogFile == "" || bad != failed || !bad && c.Status != Passed {
				continue
			}
			if maxLogs--; maxLogs < 0 {
				if failed {
					unread++
				}
				continue
			}
			changed = r.readTestLog(c, dir, read, w) || changed
		}
	}
	if changed {
		r.finish()
	}
	return unread
}

// readTestLog reads c's own log; it reports whether c changed.
func (r *Report) readTestLog(c *Case, dir string, read LogReader, w io.Writer) bool {
	path := c.LogFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	log, err := read(path, maxTestLog)
	if ext := filepath.Ext(c.Name); err != nil && ext != "" {
		path = strings.TrimSuffix(path, ext+".log") + ".log"
		log, err = read(path, maxTestLog)
	}
	if err != nil {
		return false
	}
	c.LogFile = path
	if !r.readTestLogFrom(c, bytes.NewReader(log)) {
		return false
	}
	if w != nil {
		writeTestLogSection(w, c.Name, filepath.Base(path), log)
	}
	return true
}

// LogReader reads up to max bytes of a test's own log.
type LogReader func(path string, max int) ([]byte, error)

func readLocalLog(path string, max int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(max)))
}

// readTestLogFrom reads a test's log into c, r's case, and what the test
// program's framework said of its tests (nested.go); it reports whether c
// changed.
func (r *Report) readTestLogFrom(c *Case, log io.Reader) bool {
	var prog programOutput
	passed := c.Status == Passed
	changed := false
	var stack stackCase
	if passed {
		io.Copy(&prog, log)
	} else {
		changed = readTestLogEvidence(c, io.TeeReader(log, &prog), &stack)
	}
	if cut := c.adoptFramework(prog.framework(), prog.truncated); cut != nil && passed {
		r.cutShort(c.Suite, c.Name, cut.afterExitZero())
	}
	c.nameCase(&stack)
	return changed || c.byFramework
}

// readTestLogEvidence reads a failed test's log into c: a sanitizer's
// report, a signal's exit status, an assertion. It reports whether c
// changed. stack reads the report's first stack for the case it ran in.
func readTestLogEvidence(c *Case, log io.Reader, stack *stackCase) bool {
	sc := bufio.NewScanner(log)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var sanitizer, assertion, frame, death string
	var file string
	var line, status int
	inReport := false
	for sc.Scan() {
		l := sc.Text()
		if sanitizer != "" {
			stack.feed(l) // the report's lines after its first
		}
		switch {
		case sanitizer == "" && isSanitizerReport(l):
			sanitizer, inReport = sanitizerMessage(l), true
		case inReport:
			if fn, fl, n, ok := sanitizerFrame(l); ok {
				frame, file, line, inReport = fn, fl, n, false
			}
		case assertion == "" && strings.Contains(l, "Assertion `") && strings.Contains(l, "' failed"):
			assertion = strings.TrimSpace(l)
		case death == "":
			death = crashEvidence(l) // a program the test ran died: the shell's "Segmentation fault"
		}
		if m := exitStatusRE().FindStringSubmatch(l); m != nil {
			status, _ = strconv.Atoi(m[1])
		}
	}
	before := *c
	if c.bySignalLine && status > 0 && coreSignals[status-128] == "" {
		// Its own exit status says no signal: the line was a test's
		// running beside it (the parallel harness prints as they end).
		c.Status, c.Message, c.bySignalLine = Failed, "", false
	}
	switch {
	case sanitizer != "":
		c.Status, c.Message = Crashed, sanitizer
		if frame != "" {
			c.File, c.Line = file, line
			c.Message += " in " + frame + " at " + filepath.Base(file) + ":" + strconv.Itoa(line)
		}
	case status > 128 && coreSignals[status-128] != "":
		c.Status = Crashed
		c.Message = coreSignals[status-128] + " (exit status " + strconv.Itoa(status) + ")"
		if assertion != "" {
			c.Message += ": " + assertion
		}
	case death != "":
		c.Status = Crashed
		c.Message = strings.TrimSpace("a program the test ran died: " + death + "\n" + assertion)
	case assertion != "":
		c.Message = assertion
	}
	return *c != before
}
