package testreport

import (
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/crashsite"
)

// goEnd reads one Go test binary's output, line by line, for how the binary
// ended: a panic, or the testing package's -timeout alarm. The go-json and
// go-text readers feed it the same lines (the output events' text, the
// log's lines), so that they agree.
//
// The alarm is not a crash: it panics on purpose, after naming the tests
// it interrupted, then dumps every goroutine:
//
//	panic: test timed out after 30s
//		running tests:
//			TestSub (30s)
//			TestSub/hang (30s)
//
//	goroutine 17 [running]:
//	…
//	goroutine 8 [sleep]:
//	time.Sleep(0x34630b8a000)
//		/usr/local/go/src/runtime/time.go:363 +0x165
//	example.com/m/p.TestSub.func1(0x3d4fbbc70488?)
//		/src/p/p_test.go:11 +0x1d
//	testing.tRunner(0x3d4fbbc70488, 0x592e30)
//		…
//	created by testing.(*T).Run in goroutine 1
//
// Of the dump, only the goroutines that run a named test are kept (bounded),
// to say where each test was.
type goEnd struct {
	panicked bool     // a "panic: " line other than the alarm's
	timeout  string   // "test timed out after 30s": the alarm fired
	running  []string // the tests the alarm named
	listing  bool     // reading the alarm's "running tests:" list
	cur      *goroutineStack
	stacks   []goroutineStack // the dump's goroutines that run a named test
}

// goroutineStack is one goroutine of a dump.
type goroutineStack struct {
	text    strings.Builder // its lines, bounded
	frames  []crashsite.Frame
	fn      string // a function line whose file line comes next
	inRun   bool   // waiting in testing.(*T).Run: a parent test waiting for a subtest
	created bool   // past "created by": what follows is not its stack
}

// goLineKind is what goEnd.line found in a line.
type goLineKind int

const (
	goOtherLine   goLineKind = iota
	goPanicLine              // "panic: …": the binary dies of it
	goTimeoutLine            // "panic: test timed out after …": the alarm
)

const (
	maxTimedOut    = 100 // tests kept of the alarm's list
	maxStacks      = 16  // goroutines kept of its dump
	maxStackFrames = 64
)

// line reads one line of the binary's output (its line ending may be left on).
func (e *goEnd) line(l string) goLineKind {
	l = strings.TrimRight(l, "\r\n")
	if after, ok := strings.CutPrefix(strings.TrimLeft(l, " "), "panic: "); ok {
		if e.timeout == "" && !e.panicked && strings.HasPrefix(after, "test timed out after ") {
			e.timeout = strings.TrimSpace(after)
			return goTimeoutLine
		}
		e.panicked = true
		return goPanicLine
	}
	if e.timeout != "" {
		e.dumpLine(l)
	}
	return goOtherLine
}

// dumpLine reads a line after the alarm's: its list of tests, then the
// goroutine dump.
func (e *goEnd) dumpLine(l string) {
	t := strings.TrimSpace(l)
	switch {
	case t == "running tests:":
		e.listing = true
	case e.listing && strings.HasPrefix(l, "\t\t") && t != "":
		name := t
		if i := strings.LastIndex(name, " ("); i > 0 {
			name = name[:i]
		}
		if len(e.running) < maxTimedOut {
			e.running = append(e.running, name)
		}
	case strings.HasPrefix(l, "goroutine ") && strings.HasSuffix(t, "]:"):
		e.endStack()
		e.listing = false
		e.cur = &goroutineStack{}
		e.cur.add(l)
	case t == "":
		e.listing = false
		e.endStack()
	case e.cur != nil:
		e.cur.add(l)
	}
}

func (g *goroutineStack) add(l string) {
	if g.text.Len() < maxMessage {
		g.text.WriteString(l)
		g.text.WriteByte('\n')
	}
	switch {
	case g.created:
	case strings.HasPrefix(l, "created by "):
		g.created = true
	case strings.HasPrefix(l, "\t"):
		file, line, ok := goFileLine(l)
		if ok && g.fn != "" && len(g.frames) < maxStackFrames {
			g.frames = append(g.frames, crashsite.Frame{Function: g.fn, File: file, Line: line})
		}
		g.fn = ""
	default:
		g.fn = l
		if i := strings.LastIndex(l, "("); i > 0 && strings.HasSuffix(l, ")") {
			g.fn = l[:i]
		}
		g.inRun = g.inRun || g.fn == "testing.(*T).Run"
	}
}

// goFileLine reads a trace's file line: "\t/src/p/p_test.go:11 +0x1d".
func goFileLine(l string) (string, int, bool) {
	loc, _, _ := strings.Cut(strings.TrimSpace(l), " ")
	i := strings.LastIndex(loc, ":")
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(loc[i+1:])
	if err != nil || n <= 0 {
		return "", 0, false
	}
	return loc[:i], n, true
}

// endStack keeps the goroutine being read if it runs a test the alarm named.
func (e *goEnd) endStack() {
	g := e.cur
	e.cur = nil
	if g == nil || len(e.stacks) >= maxStacks {
		return
	}
	for _, test := range e.running {
		if g.runs(test) {
			e.stacks = append(e.stacks, *g)
			return
		}
	}
}

// runs says whether the goroutine runs the function of test's top-level
// test ("p.TestSub", or a closure of it, "p.TestSub.func1").
func (g *goroutineStack) runs(test string) bool {
	top, _, _ := strings.Cut(test, "/")
	for _, f := range g.frames {
		if strings.HasSuffix(f.Function, "."+top) || strings.Contains(f.Function, "."+top+".func") {
			return true
		}
	}
	return false
}

// timedOut says whether test was named by the alarm.
func (e *goEnd) timedOut(test string) bool {
	for _, t := range e.running {
		if t == test {
			return true
		}
	}
	return false
}

// timedOutCase makes c, a test the alarm named, errored by the timeout: its
// message is the alarm's and its goroutine's stack. A test none of whose
// subtests was named (the one that did not finish in time) has KindTimeout
// and is located where its goroutine was; a parent waiting for a subtest
// is not.
func (e *goEnd) timedOutCase(c *Case) {
	e.endStack() // a dump cut short ends with its last goroutine
	c.Status = Errored
	leaf := true
	for _, t := range e.running {
		leaf = leaf && !strings.HasPrefix(t, c.Name+"/")
	}
	msg := e.timeout
	if !leaf {
		msg += " while its subtests ran"
	}
	var g *goroutineStack
	for i := range e.stacks {
		s := &e.stacks[i]
		if s.runs(c.Name) && (g == nil || s.inRun != leaf && g.inRun == leaf) {
			g = s
		}
	}
	c.File, c.Line, c.Kind = "", 0, ""
	if g != nil {
		msg += "\n" + strings.TrimRight(g.text.String(), "\n")
	}
	c.Message = bound(msg)
	if !leaf {
		return
	}
	c.Kind = KindTimeout
	if g == nil {
		return
	}
	if i := crashsite.Pick(g.frames, ""); i >= 0 && g.frames[i].HasSource() {
		c.File, c.Line = g.frames[i].File, g.frames[i].Line
	}
}

// goCaseMessage sets c's message from a Go test's output: without the
// runner's own lines, bounded, located at its first "x_test.go:12: " line,
// or at a data race's site for a test the race detector failed.
func goCaseMessage(c *Case, out string) {
	var keep []string
	for _, l := range strings.SplitAfter(out, "\n") {
		if !dropped(l) {
			keep = append(keep, l)
		}
	}
	c.Message = bound(strings.TrimRight(strings.Join(keep, ""), "\n"))
	c.File, c.Line = goLocation(c.Message)
	if site, ok := raceIn(c.Message); ok && c.Status == Failed {
		// "testing.go:1712: race detected during execution of test"
		c.Kind = KindDataRace
		if c.File == "" {
			c.File, c.Line = site.File, site.Line
		}
	}
}
