package testreport

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/triage-dev/triage/internal/textclip"
)

// FormatMesonTestlog names meson-logs/testlog.json for [Parse].
const FormatMesonTestlog = "meson-testlog"

// ParseMesonTestlog reads meson's machine log of a test run,
// meson-logs/testlog.json in the build directory: one JSON object a line,
// written as each test ends, with the test's name (as the console prints
// it), result (OK, FAIL, TIMEOUT… as on the console), returncode (negative:
// the signal that killed it, as Python's subprocess reports it), duration
// in seconds, stdout and, when it wrote any, stderr; the environment and
// command are skipped. Statuses and messages are those of the console
// reader (parseMeson), the message's evidence taken from the test's own
// output, which the console shows only under -v or --print-errorlogs.
//
// The file is read as it streams (mesontestlog_decode.go): a field's text
// is decoded as it comes, only a few lines of a test's output are kept
// (and, when a test framework wrote it, its first 512 KiB for the
// framework's reader: nested.go), and a record is never held whole, so a
// test that printed megabytes costs no more than one that printed 512 KiB.
//
// The file carries no tally. A record cut off by the end of the file
// (meson killed while writing, a copy cut) is recorded in
// [Report.CutShort]; a run killed between records leaves only the tests it
// finished (fewer still, as meson buffers the file), which the file alone
// cannot show: the console output's tally can.
func ParseMesonTestlog(r io.Reader) (*Report, error) {
	rep := &Report{Format: FormatMeson}
	d := &testlogDecoder{br: bufio.NewReaderSize(r, 64<<10)}
	bad := 0
	for {
		rec, err := d.next()
		if err == io.EOF {
			break
		}
		var rerr *testlogReadError
		if errors.As(err, &rerr) {
			return nil, fmt.Errorf("reading meson testlog: %w", rerr.err)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			how := fmt.Sprintf("testlog.json ended inside the record of line %d", d.line)
			if rec.name != "" {
				rep.Cases = append(rep.Cases, Case{Suite: mesonSuite(rec.name), Name: rec.name, Status: Errored,
					Message: "the test's record in testlog.json is cut off"})
			}
			rep.cutShort(FormatMeson, rec.name, how)
			break
		}
		if err != nil {
			bad++
			if bad == 1 {
				rep.Notes = append(rep.Notes, fmt.Sprintf("testlog.json line %d: %v", d.line, err))
			}
			if err := d.skipLine(); err != nil {
				break
			}
			continue
		}
		c := rec.testCase()
		if cut := rec.out.cut; cut != nil {
			rep.cutShort(c.Suite, c.Name, cut.afterExitZero())
		}
		rep.Cases = append(rep.Cases, c)
	}
	if bad > 1 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("testlog.json: %d lines are not test records", bad))
	}
	rep.finish()
	return rep, nil
}

// testlogRecord is what is read of one test's record.
type testlogRecord struct {
	name, result string
	returncode   int
	hasCode      bool
	duration     float64
	out          testOutput
}

// testCase is the record's case, with the details the console would print
// of its exit (meson shows them for a non-zero returncode).
func (rec *testlogRecord) testCase() Case {
	detail := ""
	if rec.hasCode && rec.returncode != 0 {
		detail = mesonExitStatus(rec.returncode)
	}
	c := mesonCase(rec.name, rec.result, detail, time.Duration(rec.duration*float64(time.Second)))
	rec.out.apply(&c)
	c.Closing, c.OutputLines = rec.out.last, rec.out.lines
	return c
}

// mesonExitStatus says a returncode in meson's words.
func mesonExitStatus(code int) string {
	switch {
	case code < 0:
		return fmt.Sprintf("killed by signal %d %s", -code, signalName(-code))
	case code <= 128:
		return fmt.Sprintf("exit status %d", code)
	case code-128 < 32:
		return fmt.Sprintf("(exit status %d or signal %d %s)", code, code-128, signalName(code-128))
	}
	return fmt.Sprintf("(exit status %d or %#x)", code, code)
}

// signalNames are Linux's signal numbers.
var signalNames = [...]string{1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT",
	7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE",
	14: "SIGALRM", 15: "SIGTERM", 16: "SIGSTKFLT", 17: "SIGCHLD", 18: "SIGCONT", 19: "SIGSTOP", 20: "SIGTSTP",
	21: "SIGTTIN", 22: "SIGTTOU", 23: "SIGURG", 24: "SIGXCPU", 25: "SIGXFSZ", 26: "SIGVTALRM", 27: "SIGPROF",
	28: "SIGWINCH", 29: "SIGIO", 30: "SIGPWR", 31: "SIGSYS"}

func signalName(n int) string {
	if n > 0 && n < len(signalNames) {
		return signalNames[n]
	}
	return "SIGinvalid"
}

// Bounds of what testlog.json's records keep.
const (
	maxKey        = 64      // a field name
	maxNameField  = 4 << 10 // a test's name
	maxWordField  = 64      // a result
	maxNumberText = 32      // a number's text
)

// Bounds of what testOutput keeps.
const (
	maxOutputLines = 5   // lines of evidence kept
	maxOutputLine  = 512 // bytes of one line
)

// failureLineRE finds the lines of a test's output that say what failed.
var failureLineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)assert|\bfail|\berror\b|panic|fatal|abort|exception|segmentation fault|^not ok\b|\bexpected\b`)
})

// testOutput reads a test's own output for why it failed, keeping a few
// lines: a sanitizer's report (its kind, and its first frame in the
// project), a data race's, the lines that say something failed (an
// assertion, "not ok", an error), and else the first lines.
type testOutput struct {
	first, hits []string
	sanitizer   string    // "AddressSanitizer: heap-buffer-overflow"
	inReport    bool      // the sanitizer report's frames are being read
	stack       stackCase // the report's first stack, for the case it ran in
	frame, file string
	line        int
	race        *raceReport
	raceMsg     string
	raceDone    bool          // the race report ended
	last        string        // the last non-blank line (Case.Closing)
	lines       int           // non-blank lines (Case.OutputLines)
	program     programOutput // for the test program's framework's reader
	cut         *CutShort     // the framework's run cut short in a test that passed
}

// feed reads one line of the output.
func (o *testOutput) feed(line string) {
	t := strings.TrimSpace(line)
	if t == "" || t == "stdout:" || t == "stderr:" || t == "Listing only the last 100 lines from a long log." ||
		strings.Contains(t, " time out (After ") {
		return // meson's words, not the test's
	}
	o.program.line(line)
	o.last = strings.ToValidUTF8(t[:min(len(t), maxClosing)], "")
	o.lines++
	switch {
	case o.raceMsg == "" && isRaceStart(t):
		o.raceMsg = sanitizerMessage(t)
		o.race = &raceReport{}
		o.race.feed(t)
		return
	case o.race != nil && !o.raceDone:
		o.raceDone = o.race.feed(line) || !o.race.started
		return
	case o.sanitizer == "" && isSanitizerReport(t):
		o.sanitizer, o.inReport = sanitizerMessage(t), true
		return
	case o.inReport:
		if fn, file, n, ok := sanitizerFrame(t); ok {
			o.frame, o.file, o.line, o.inReport = fn, file, n, false
		}
		o.stack.feed(t)
		return
	case o.sanitizer != "":
		o.stack.feed(t)
		return // the rest of the report ("==42==ABORTING", shadow bytes) says no more
	}
	if !strings.ContainsFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return // a rule, "=========="
	}
	t = textclip.String(t, maxOutputLine)
	if len(o.hits) < maxOutputLines && failureLineRE().MatchString(t) {
		o.hits = append(o.hits, t)
	}
	if len(o.first) < 3 {
		o.first = append(o.first, t)
	}
}

// apply gives c what the output says: the evidence when c did not pass,
// and what the test program's framework said of its tests (nested.go),
// which may fail a test that passed.
func (o *testOutput) apply(c *Case) {
	passed := c.Status == Passed
	if !passed && c.Status != Skipped {
		o.evidence(c)
	}
	if cut := c.adoptFramework(o.program.framework(), o.program.truncated); cut != nil && passed {
		o.cut = cut
	}
	if !passed {
		c.nameCase(&o.stack)
	}
}

// evidence gives c, which did not pass, what the output says. A sanitizer's
// report makes a failed test crashed (as under CTest: the sanitizer chose
// the exit status), unless meson killed it; a data race marks it. The
// message starts with what meson said of the exit, then the output's
// evidence, the first line joined to it.
func (o *testOutput) evidence(c *Case) {
	if o.race != nil && o.race.site == nil {
		o.race.finish()
	}
	var lead string
	switch {
	case o.sanitizer != "":
		lead = o.sanitizer
		if o.frame != "" {
			c.File, c.Line = o.file, o.line
			lead += " in " + o.frame + " at " + filepath.Base(o.file) + ":" + strconv.Itoa(o.line)
		}
		if !mesonKilled(c) {
			c.Status = Crashed
		}
	case o.raceMsg != "":
		c.Kind, lead = KindDataRace, o.raceMsg
		if o.race != nil && o.race.site != nil {
			s := o.race.site
			c.File, c.Line = s.File, s.Line
			lead += " in " + s.Function + " at " + filepath.Base(s.File) + ":" + strconv.Itoa(s.Line)
		}
	}
	evidence := o.hits
	if len(evidence) == 0 {
		evidence = o.first
	}
	msg := c.Message
	if lead != "" {
		msg = lead + " (" + msg + ")"
	}
	for i, l := range evidence {
		switch {
		case i == 0 && lead == "" && msg != "":
			msg += ": " + l
		case msg == "":
			msg = l
		default:
			msg += "\n" + l
		}
	}
	c.Message = bound(msg)
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }
