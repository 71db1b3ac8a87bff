package testreport

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FormatNextest is the human output of cargo-nextest (`cargo nextest run`).
const FormatNextest = "nextest"

// nextest runs each test in a process of its own and prints a line as each
// ends, its status right-aligned before the time:
//
//	    Starting 4 tests across 1 binary
//	        PASS [   0.004s] (1/4) demo tests::adds
//	     SIGSEGV [   0.120s] (3/4) demo tests::walks_list
//	--- STDERR:              demo tests::fails ---
//	thread 'tests::fails' panicked at src/lib.rs:12:9:
//	     Summary [   0.130s] 4 tests run: 3 passed, 1 failed, 0 skipped
//
// then the failed tests again, and "error: test run failed". The counter
// "(1/4)" is left out by older versions. A run is complete with its
// Summary line; one without it (nextest killed, the log cut) was cut
// short, and a Summary of "8/10 tests run" says tests were never run.
var (
	nextestStartRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*Starting (\d+) tests? across \d+ binar(?:y|ies)`)
	})
	// The status: "PASS", "FAIL + LEAK", "TRY 2 FAIL", "FLAKY 2/2",
	// "SIGSEGV", "TIMEOUT"; the time "[   0.004s]" (a slow test's
	// "[>60.000s]"); a stress run's "[1/5]"; the counter; binary; test.
	nextestResultRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*([A-Z][A-Z0-9 +/-]*?) \[[ >]*([0-9.]+)s\] (?:\[\d+/\d+\] )?(?:\(\s*\d+/\s*\d+\) )?(\S+) (\S.*?)\s*$`)
	})
	nextestSummaryRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*Summary \[\s*[0-9.]+s\] (?:(\d+)/)?(\d+) tests? run: (\d+) passed(?: \([^)]*\))?(.*)$`)
	})
	nextestCountRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(\d+) (failed|exec failed|timed out|skipped)`)
	})
	// Older versions name the test above its output: "--- STDERR:
	// demo tests::fails ---"; newer ones put the output under the
	// test's result line ("  stderr ───", indented).
	nextestOutputRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^--- STD(?:OUT|ERR):\s+(\S+) (\S.*?) ---$`)
	})
	// "thread 'tests::fails' panicked at src/lib.rs:12:9:", before Rust
	// 1.73 "panicked at 'msg', src/lib.rs:12:9"
	rustPanicAtRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`panicked at (?:'.*', )?([^\s:']+):(\d+):\d+`)
	})
)

// nextestStartLineRE finds nextest's Starting line in a sample.
var nextestStartLineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*Starting \d+ tests? across \d+ binar(?:y|ies)`)
})

// isNextest tells nextest's output in a sample.
func isNextest(sample []byte) bool {
	return bytes.Contains(sample, []byte(" Nextest run ID ")) || nextestStartLineRE().Match(sample)
}

// nextestRun follows one output.
type nextestRun struct {
	rep     *Report
	index   map[string]int // case by binary and test
	started int            // tests the Starting line announced; -1 none
	summary bool
	output  int  // the case whose output block is being read; -1 none
	message bool // the next line is the output's panic message
}

func parseNextest(r io.Reader) (*Report, error) {
	n := &nextestRun{rep: &Report{Format: FormatNextest}, index: map[string]int{}, started: -1, output: -1}
	if err := lines(r, n.line); err != nil {
		return nil, err
	}
	n.end()
	return n.rep, nil
}

func (n *nextestRun) line(l string) {
	switch {
	case n.summary:
		// The failed tests again, then "error: test run failed".
		if strings.HasPrefix(l, "error: ") {
			n.rep.RunnerErrors = addDistinct(n.rep.RunnerErrors, l)
		}
	case nextestStartRE().MatchString(l):
		m := nextestStartRE().FindStringSubmatch(l)
		started, _ := strconv.Atoi(m[1])
		n.started = max(n.started, 0) + started
		n.output = -1
	case nextestSummaryRE().MatchString(l):
		n.summarize(l)
	case nextestResultRE().MatchString(l):
		n.result(nextestResultRE().FindStringSubmatch(l))
	case nextestOutputRE().MatchString(l):
		m := nextestOutputRE().FindStringSubmatch(l)
		n.output = n.caseOf(m[1], m[2])
	case n.output >= 0:
		n.outputLine(l)
	}
}

// caseOf returns the index of binary's test, added (passed) when new.
func (n *nextestRun) caseOf(binary, test string) int {
	key := caseKey(binary, test)
	if i, ok := n.index[key]; ok {
		return i
	}
	n.rep.Cases = append(n.rep.Cases, Case{Suite: binary, Name: test, Status: Passed})
	n.index[key] = len(n.rep.Cases) - 1
	return len(n.rep.Cases) - 1
}

// result records a test's end line; a later line of the same test (a
// retry) replaces an earlier one's status.
func (n *nextestRun) result(m []string) {
	status, ok := nextestStatus(m[1])
	if !ok {
		return // SLOW, START, RETRY, SKIP: not an end
	}
	i := n.caseOf(m[3], m[4])
	c := &n.rep.Cases[i]
	c.Status, c.Kind = status, ""
	if d, err := strconv.ParseFloat(m[2], 64); err == nil {
		c.Duration = time.Duration(d * float64(time.Second))
	}
	word := strings.TrimSpace(m[1])
	switch {
	case status == Crashed:
		c.Message = "killed by " + word
	case status == Errored:
		c.Kind, c.Message = KindTimeout, "timed out after "+m[2]+" s"
	case status == Failed && c.Message == "":
		c.Message = "nextest: " + word
	}
	n.output, n.message = i, false // what follows, up to the next result, is its output
}

// nextestStatus maps a result's status words to a case's; false for
// lines that end no test.
func nextestStatus(words string) (Status, bool) {
	w := strings.TrimSpace(words)
	if strings.HasPrefix(w, "TRY ") { // "TRY 2 FAIL": a retry's result
		if _, rest, ok := strings.Cut(w[4:], " "); ok {
			w = rest
		}
	}
	switch {
	case w == "PASS" || w == "LEAK" || w == "TIMEOUT-PASS" || strings.HasPrefix(w, "FLAKY "):
		return Passed, true
	case w == "TIMEOUT" || w == "TMT":
		return Errored, true
	case strings.HasPrefix(w, "SIG") || w == "ABORT":
		return Crashed, true
	case strings.Contains(w, "FAIL") || strings.HasPrefix(w, "FLKY-FL") || w == "FL+LK" || w == "LKFAIL":
		return Failed, true
	}
	return "", false
}

// outputLine reads a failed test's output for where it panicked: the
// panic's line is its message.
func (n *nextestRun) outputLine(l string) {
	c := &n.rep.Cases[n.output]
	if n.message {
		// Rust 1.73 on: "panicked at src/lib.rs:12:9:", the message below.
		n.message = false
		c.Message = bound(c.Message + " " + strings.TrimSpace(l))
		return
	}
	if c.Status == Passed || c.File != "" {
		return
	}
	if m := rustPanicAtRE().FindStringSubmatch(l); m != nil {
		c.File = m[1]
		c.Line, _ = strconv.Atoi(m[2])
		c.Message = bound(strings.TrimSpace(l))
		n.message = strings.HasSuffix(c.Message, ":")
	}
}

// summarize reads "Summary [ 0.130s] 8/10 tests run: 5 passed (1 slow),
// 2 failed, 1 exec failed, 1 timed out, 2 skipped".
func (n *nextestRun) summarize(l string) {
	m := nextestSummaryRE().FindStringSubmatch(l)
	n.summary, n.output = true, -1
	ts := n.rep.summary()
	ran, _ := strconv.Atoi(m[2])
	of := ran
	if m[1] != "" { // "8/10 tests run": 8 of the 10
		ran, _ = strconv.Atoi(m[1])
	}
	passed, _ := strconv.Atoi(m[3])
	addTally(&ts.Total, ran)
	addTally(&ts.Passed, passed)
	ts.Failed, ts.Skipped = max(ts.Failed, 0), max(ts.Skipped, 0)
	for _, c := range nextestCountRE().FindAllStringSubmatch(m[4], -1) {
		k, _ := strconv.Atoi(c[1])
		if c[2] == "skipped" {
			ts.Skipped += k
		} else {
			ts.Failed += k
		}
	}
	ts.addLine(strings.TrimSpace(l))
	if ran < of {
		n.rep.cutShort("nextest", "", fmt.Sprintf("%d of %d tests ran (nextest stopped early)", ran, of))
	}
}

// end marks a run without its summary cut short.
func (n *nextestRun) end() {
	if n.summary || n.started < 0 {
		return
	}
	how := "the output ended before nextest's summary"
	if done := len(n.rep.Cases); n.started > 0 {
		how += fmt.Sprintf(": %d of %d tests finished", done, n.started)
	}
	n.rep.cutShort("nextest", "", how)
}
