package pipeline

import (
	"bytes"
	"sync/atomic"
	"time"
)

// Progress is a snapshot of a run in progress, for progress notifications.
type Progress struct {
	Step, Steps int    // 1-based step being run, of how many
	StepName    string // configure, build or test
	Command     string // the step's command line
	Lines       int64  // output lines of the whole run so far
	Passed      int64  // tests seen passing so far (test steps)
	Failed      int64  // tests seen failing or crashing so far
	Elapsed     time.Duration
}

// counter counts lines and, cheaply and approximately, test results as
// output streams, so that progress can say "12 passed, 1 failed" long before
// the parser's report exists. The report, not the counter, is the truth.
//
// Write is called by one goroutine; the counts are read by another.
type counter struct {
	lines          atomic.Int64
	passed, failed atomic.Int64
	partial        []byte // an incomplete line, at most maxCounted bytes
	mesonSummary   bool   // meson test's "Summary of Failures:" was seen
}

// maxCounted bounds the bytes of one line the counter looks at.
const maxCounted = 512

func newCounter() *counter { return &counter{} }

func (c *counter) Write(p []byte) (int, error) {
	n := len(p)
	c.lines.Add(int64(bytes.Count(p, []byte{'\n'}))) // once a block, not a line
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.keep(p)
			break
		}
		line := p[:i]
		if len(c.partial) > 0 {
			c.keep(line)
			line = c.partial
		}
		c.line(line)
		c.partial = c.partial[:0]
		p = p[i+1:]
	}
	return n, nil
}

func (c *counter) keep(p []byte) {
	if room := maxCounted - len(c.partial); room > 0 {
		c.partial = append(c.partial, p[:min(len(p), room)]...)
	}
}

var (
	litAction    = []byte(`"Action":"`)
	litPass      = []byte(`pass"`)
	litFail      = []byte(`fail"`)
	litTestField = []byte(`"Test":"`)
)

// line counts one line's test result, in the formats triage runs.
func (c *counter) line(l []byte) {
	if len(l) > maxCounted {
		l = l[:maxCounted]
	}
	l = bytes.TrimRight(l, "\r")
	switch {
	case bytes.HasPrefix(l, []byte(`{"`)):
		// go test -json: a test's own pass or fail event. Most events are
		// output, so the action, near the start, is looked at first.
		i := bytes.Index(l, litAction)
		if i < 0 {
			return
		}
		action := l[i+len(litAction):]
		pass := bytes.HasPrefix(action, litPass)
		if !pass && !bytes.HasPrefix(action, litFail) || !bytes.Contains(l, litTestField) {
			return
		}
		if pass {
			c.passed.Add(1)
		} else {
			c.failed.Add(1)
		}
	case bytes.HasPrefix(l, []byte("test ")) && bytes.Contains(l, []byte(" ... ")):
		// libtest: "test tests::adds ... ok"
		switch {
		case bytes.HasSuffix(l, []byte(" ok")):
			c.passed.Add(1)
		case bytes.HasSuffix(l, []byte(" FAILED")):
			c.failed.Add(1)
		}
	case bytes.Contains(l, []byte(" Test #")):
		// ctest: "1/3 Test #1: adds .....   Passed    0.00 sec"
		switch {
		case bytes.Contains(l, []byte("   Passed")):
			c.passed.Add(1)
		case bytes.Contains(l, []byte("***")):
			c.failed.Add(1)
		}
	case bytes.HasPrefix(bytes.TrimLeft(l, " \t"), []byte("Test Case '")):
		// XCTest: "Test Case '-[S t]' passed (0.001 seconds)."
		switch {
		case bytes.Contains(l, []byte("' passed (")):
			c.passed.Add(1)
		case bytes.Contains(l, []byte("' failed (")):
			c.failed.Add(1)
		}
	case bytes.Equal(l, litMesonFailures):
		// meson test lists its failed tests' lines again after this.
		c.mesonSummary = true
	case !c.mesonSummary:
		switch mesonResult(l) {
		case "OK", "EXPECTEDFAIL":
			c.passed.Add(1)
		case "FAIL", "TIMEOUT", "UNEXPECTEDPASS", "ERROR":
			c.failed.Add(1)
		}
	}
}

var litMesonFailures = []byte("Summary of Failures:")

// mesonResult is the result of a meson test line, "2/5 name  FAIL
// 0.02s   killed by signal 11 SIGSEGV" (the name may hold spaces): the
// word before the duration; "" for another line.
func mesonResult(l []byte) string {
	l = bytes.TrimLeft(l, " ")
	i := bytes.IndexByte(l, '/')
	if i <= 0 || !allDigits(l[:i]) {
		return ""
	}
	fields := bytes.Fields(l[i+1:])
	if len(fields) < 4 || !allDigits(fields[0]) {
		return ""
	}
	for j := 2; j+1 < len(fields); j++ {
		if d := fields[j+1]; len(d) > 1 && d[len(d)-1] == 's' && allDigits(bytes.Replace(d[:len(d)-1], []byte("."), nil, 1)) {
			return string(fields[j])
		}
	}
	return ""
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}
