package testreport

import (
	"io"
	"path/filepath"
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
	// Unity's failure line, which --output-on-failure prints after the
	// failed test's result line:
	// "/src/tests/parse_number.c:72:parse_number_should_parse_zero:FAIL: Expected 1 Was 2. injected"
	unityFailRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\S+?\.\w+):(\d+):(\w+):FAIL(?::\s*(.*))?$`)
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
	rep := &Report{Format: FormatCTest}
	var started []string // tests started without a result line, in order
	summary := false
	inReport := false // a sanitizer report's frames are being read
	var race *raceReport
	err := lines(r, func(line string) {
		if m := ctestStartRE().FindStringSubmatch(line); m != nil {
			started = append(started, m[1])
			return
		}
		if m := ctestCaseRE().FindStringSubmatch(line); m != nil {
			if i := slices.Index(started, m[1]); i >= 0 {
				started = slices.Delete(started, i, i+1)
			}
			result := strings.TrimSpace(strings.ReplaceAll(m[2], "***", " "))
			c := Case{Suite: "ctest", Name: m[1], Status: ctestStatus(result)}
			if secs, err := strconv.ParseFloat(m[3], 64); err == nil {
				c.Duration = time.Duration(secs * float64(time.Second))
			}
			if c.Status != Passed {
				c.Message = result
			}
			rep.Cases = append(rep.Cases, c)
			return
		}
		// --output-on-failure prints a failed test's output after its
		// result line: a sanitizer report there makes the test crashed,
		// whatever exit status the sanitizer chose.
		if n := len(rep.Cases); n > 0 && rep.Cases[n-1].Status == Failed && isRaceStart(line) {
			// A data race fails the test, which ran to its end: race.go.
			c := &rep.Cases[n-1]
			c.Kind, c.Message = KindDataRace, sanitizerMessage(line)
			race = &raceReport{}
			race.feed(line)
			return
		}
		if race != nil && race.feed(line) {
			c := &rep.Cases[len(rep.Cases)-1]
			c.File, c.Line = race.site.File, race.site.Line
			c.Message += " in " + race.site.Function + " at " + c.File + ":" + strconv.Itoa(c.Line)
			race = nil
		}
		if n := len(rep.Cases); n > 0 && rep.Cases[n-1].Status == Failed && isSanitizerReport(line) {
			c := &rep.Cases[n-1]
			c.Status, c.Message = Crashed, sanitizerMessage(line)
			inReport = true
			return
		}
		if n := len(rep.Cases); n > 0 && rep.Cases[n-1].Status == Failed && rep.Cases[n-1].File == "" {
			if m := unityFailRE().FindStringSubmatch(line); m != nil {
				// The first failed assertion of the test program.
				c := &rep.Cases[n-1]
				c.File = m[1]
				c.Line, _ = strconv.Atoi(m[2])
				c.Message = m[3] + " at " + filepath.Base(m[1]) + ":" + m[2]
				if m[4] != "" {
					c.Message += ": " + m[4]
				}
				return
			}
		}
		if n := len(rep.Cases); inReport && n > 0 {
			// The report's first frame in the program's own code.
			if fn, file, ln, ok := sanitizerFrame(line); ok {
				c := &rep.Cases[n-1]
				c.File, c.Line = file, ln
				c.Message += " in " + fn + " at " + file + ":" + strconv.Itoa(ln)
				inReport = false
			}
		}
		if m := ctestSummaryRE().FindStringSubmatch(line); m != nil {
			summary = true
			ts := rep.summary()
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
	})
	if err != nil {
		return nil, err
	}
	if !summary {
		for _, name := range started {
			rep.Cases = append(rep.Cases, Case{Suite: "ctest", Name: name, Status: Errored,
				Message: "ctest ended before the test finished (the output ended)"})
			rep.cutShort("ctest", name, "the output ended")
		}
		if len(started) == 0 && len(rep.Cases) > 0 {
			rep.cutShort("ctest", "", "the output ended before ctest's summary")
		}
	}
	return rep, nil
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
// /src/tests/asan.c:4:10", when it is in the program's own code by the one
// crashing-frame rule (crashsite): not the sanitizer's interceptors, nor a
// system library.
func sanitizerFrame(line string) (fn, file string, ln int, ok bool) {
	f := strings.Fields(line)
	if len(f) < 5 || !strings.HasPrefix(f[0], "#") || f[2] != "in" || strings.HasPrefix(f[4], "(") {
		return "", "", 0, false
	}
	fn, loc := f[3], f[4]
	parts := strings.Split(loc, ":")
	if len(parts) < 2 {
		return "", "", 0, false
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil {
		return "", "", 0, false
	}
	if crashsite.OriginOf(crashsite.Frame{Function: fn, File: parts[0], Line: n}, "") != crashsite.Project {
		return "", "", 0, false
	}
	return fn, parts[0], n, true
}
