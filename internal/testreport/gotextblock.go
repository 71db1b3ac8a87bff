package testreport

import (
	"strings"
)

// goTextBlock is one package's output, until its "ok" or "FAIL" line.
type goTextBlock struct {
	cases   []Case
	index   map[string]int              // test -> cases index
	output  map[string]*strings.Builder // test -> its output
	running []string                    // tests started (=== RUN) and not finished
	verbose bool                        // "=== RUN" lines: go test -v

	owner       string // the test the next output lines are
	ownerIndent int    // the indentation of the owner's "--- FAIL" line
	fromHeader  bool   // the owner is named by its "--- FAIL/SKIP" line
	header      bool   // the last line was a "--- " result line
	lastFail    string // the first test failed in the last run of result lines
	culprit     string // the test a panic's trace belongs to

	pending     strings.Builder // output no test owns: a race report before its test's FAIL line
	pendingRace bool

	verdict    string // the binary's "PASS" or "FAIL"
	exitStatus string // "exit status 1" (go test in the package's directory)
	failed     bool   // a test failed
	end        goEnd
}

func newGoTextBlock() *goTextBlock {
	return &goTextBlock{index: map[string]int{}, output: map[string]*strings.Builder{}}
}

// runningTest is the test output without a test's name is from, under -v:
// the last one named, while it runs, else the last one started.
func (b *goTextBlock) runningTest() string {
	for _, t := range b.running {
		if t == b.owner {
			return t
		}
	}
	if n := len(b.running); n > 0 {
		return b.running[n-1]
	}
	return ""
}

// ownerOf names the test an output line is from, "" when none. Under -v,
// the test named last; without it, a failed test's lines are indented
// below its "--- FAIL" line (an example's "got:" and "want:" are not).
func (b *goTextBlock) ownerOf(l string) string {
	switch {
	case b.owner != "" && b.fromHeader:
		if b.verbose || strings.TrimSpace(l) == "" || len(l)-len(strings.TrimLeft(l, " ")) > b.ownerIndent ||
			strings.HasPrefix(b.owner, "Example") {
			return b.owner
		}
		b.owner, b.fromHeader = "", false // a line of no test's, without -v
	case b.verbose:
		return b.runningTest()
	}
	return ""
}

// dedent takes a failed subtest's indentation off its output lines, as -v
// and -json print them.
func (b *goTextBlock) dedent(l string) string {
	if !b.fromHeader || b.ownerIndent == 0 {
		return l
	}
	if t := strings.TrimLeft(l, " "); len(l)-len(t) >= b.ownerIndent {
		return l[b.ownerIndent:]
	}
	return l
}

func (b *goTextBlock) caseFor(name string) *Case {
	if i, ok := b.index[name]; ok {
		return &b.cases[i]
	}
	b.index[name] = len(b.cases)
	b.cases = append(b.cases, Case{Name: name})
	return &b.cases[len(b.cases)-1]
}

func (b *goTextBlock) add(name, text string) {
	o := b.output[name]
	if o == nil {
		o = &strings.Builder{}
		b.output[name] = o
	}
	if o.Len() < maxMessage {
		o.WriteString(text)
		if !strings.HasSuffix(text, "\n") {
			o.WriteByte('\n')
		}
	}
}

func (b *goTextBlock) removeRunning(name string) {
	for i, t := range b.running {
		if t == name {
			b.running = append(b.running[:i], b.running[i+1:]...)
			return
		}
	}
}

// active says whether the block shows a test binary at work.
func (b *goTextBlock) active() bool {
	return len(b.cases) > 0 || len(b.running) > 0 || b.end.panicked || b.end.timeout != ""
}

// howEnded says how the package's test binary ended, for a test it left
// unfinished: "exit 0", "the output ended", the alarm's timeout.
func (b *goTextBlock) howEnded(verdict string) string {
	switch {
	case b.end.timeout != "":
		return b.end.timeout
	case verdict == "ok":
		return "exit 0"
	case verdict == "":
		return "the output ended"
	case b.exitStatus == "":
		return "a non-zero exit"
	}
	return b.exitStatus
}

// message sets a case's message from its output.
func (b *goTextBlock) message(c *Case) {
	if o := b.output[c.Name]; o != nil {
		goCaseMessage(c, o.String())
	}
}
