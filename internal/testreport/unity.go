package testreport

import (
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// FormatUnity is the output of a program run by ThrowTheSwitch's Unity
// (RUN_TEST between UNITY_BEGIN and UNITY_END).
const FormatUnity = "unity"

var (
	// "unity_t.c:17:test_add:PASS", "unity_t.c:10:test_fault:FAIL: Expected 2 Was 3. fault",
	// "unity_t.c:13:test_ignored:IGNORE: not yet"
	unityResultRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([^\s:][^:]*):(\d+):(\w+):(PASS|FAIL|IGNORE)(?::\s?(.*))?$`)
	})
	// "4 Tests 1 Failures 1 Ignored "
	unitySummaryRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\d+) Tests (\d+) Failures (\d+) Ignored\s*$`)
	})
)

// parseUnity reads a Unity program's output: a line per test as it ends,
// "FILE:LINE:TEST:PASS" (LINE the RUN_TEST's), "FILE:LINE:TEST:FAIL:
// MESSAGE" (LINE the failed assertion's) or "…:IGNORE: MESSAGE", then the
// summary, "N Tests F Failures I Ignored" and "OK" or "FAIL". FILE is
// the one the program's UNITY_BEGIN names, the same on each of its lines; a
// case's suite is its name without the extension.
//
// Unity catches no signal and prints a test's line only when it ends: a
// crash, abort() or exit() in a test ends the output after the previous
// test's line (and a crash loses what stdout had buffered), without the
// summary, so the run was cut short and the test that was running is not
// named.
func parseUnity(r io.Reader) (*Report, error) {
	f := newFrameworkRun(FormatUnity, "Unity")
	verdict := false // the summary came: the next line is Unity's OK or FAIL
	err := lines(r, func(line string) {
		if verdict {
			verdict = false
			if v := strings.TrimSpace(line); v == "OK" || v == "FAIL" {
				ts := f.rep.summary()
				ts.Verdict = map[string]string{"OK": "OK", "FAIL": "FAIL: tests failed"}[v]
				ts.addLine(v)
				return
			}
		}
		if m := unityResultRE().FindStringSubmatch(line); m != nil {
			unityCase(f, m)
			return
		}
		if m := unitySummaryRE().FindStringSubmatch(line); m != nil {
			n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
			ts := f.rep.summary()
			addTally(&ts.Total, n(1))
			addTally(&ts.Passed, n(1)-n(2)-n(3))
			addTally(&ts.Failed, n(2))
			addTally(&ts.Skipped, n(3))
			ts.addLine(strings.TrimSpace(line))
			f.summarized(-1)
			verdict = true
			return
		}
		f.died(line)
	})
	if err != nil {
		return nil, err
	}
	return f.done(), nil
}

func unityCase(f *frameworkRun, m []string) {
	suite := strings.TrimSuffix(filepath.Base(m[1]), filepath.Ext(m[1]))
	st := Passed
	switch m[4] {
	case "FAIL":
		st = Failed
	case "IGNORE":
		st = Skipped
	}
	// One program's lines all name the file of its UNITY_BEGIN: another
	// file, or a test again, is the next program's.
	if f.open && !f.summary && (f.suite != FormatUnity && f.suite != suite || f.lookup(suite, m[3]) != nil) {
		f.begin("")
	}
	c := f.result(suite, m[3], st)
	if f.suite == FormatUnity {
		f.suite = suite // what a cut-short run is named by: its first test's file
	}
	c.File = m[1]
	c.Line, _ = strconv.Atoi(m[2])
	c.Message = bound(m[5])
}
