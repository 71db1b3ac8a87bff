package testreport

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"
)

// FormatGoText is `go test` output without -json: `go test ./... 2>&1`,
// verbose (-v) or not.
const FormatGoText = "go-text"

// goTextParser reads `go test`'s text. go test prints each package's
// output whole, then the package's line: "ok  \tpkg\t0.01s", "FAIL\tpkg\t0.01s",
// "?   \tpkg\t[no test files]", "FAIL\tpkg [build failed]". So the lines
// since the last package line (a block) are one package's, which its line
// names at the end; compiler errors ("# pkg" and the lines after it) come
// between blocks, on stderr.
//
// In a block, -v prints "=== RUN   TestX" as a test starts and its
// output under it ("=== CONT", "=== NAME" switch between parallel tests),
// then "--- PASS: TestX (0.00s)". Without -v, only failed tests are shown:
// "--- FAIL: TestX (0.00s)" followed by the test's output, indented one
// level deeper; a passing package prints its "ok" line alone.
//
// What the go-json reader knows is read the same way here (goEnd,
// goCaseMessage): a panic crashes the test whose "--- FAIL" line came
// just before it (the testing package prints it, then re-panics) or,
// under -v, the test that was running; the -timeout alarm errors the tests
// it names; a race report belongs to the test the race detector failed.
//
// A package passes only on the test binary's own "PASS" line, under -v
// with every started test finished: syscall.Exit(0) in a test makes go test
// print "ok" all the same. Without -v, go test hides the PASS line of a
// passing package (in package list mode, `go test ./...`, it prints the
// "ok" line alone; run in the package's directory, `go test` prints
// "PASS" then "ok", but an exit 0 prints the "ok" line alone too, the
// same as a passing package listed), so a run cut short by exit 0 cannot
// be told from a pass there: such a package counts as one passed case
// (named after the package), and a Note says so.
type goTextParser struct {
	rep      *Report
	blk      *goTextBlock
	build    map[string][]string // package -> compiler lines held until its build fails
	buildPkg string              // the package of the "# pkg" lines being read
	quiet    bool                // a package passed on its "ok" line alone (noted)
}

func parseGoText(r io.Reader) (*Report, error) {
	p := &goTextParser{rep: &Report{Format: FormatGoText}, blk: newGoTextBlock(), build: map[string][]string{}}
	if err := lines(r, p.line); err != nil {
		return nil, err
	}
	// A log that ends within a package's output: the package's line
	// never came.
	p.endBlock(FormatGoText, "", "")
	if len(p.rep.BuildErrors) > 0 {
		// "FAIL pkg [build failed]" says no more than the compiler lines.
		p.rep.RunnerErrors = dropContaining(p.rep.RunnerErrors, "[build failed]")
	}
	return p.rep, nil
}

// goTextRE finds go test's text in a sample: a test's start or result,
// a package's line.
var goTextRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(?:=== RUN   \S|\s*--- (?:PASS|FAIL|SKIP): \S.* \(\d+\.\d+s\)\r?$|ok  \t\S|FAIL\t\S|\?   \t\S+\t\[no test files\])`)
})

// isGoText says whether a sample is go test's text, not its -json (which
// DetectFormat checks first) and not CTest's log of a Go test binary.
func isGoText(sample []byte) bool {
	return goTextRE().Match(sample) && !bytes.Contains(sample, []byte(" Test #"))
}

// GoFormat names the format of a `go test` log from a sample of it:
// FormatGoJSON for go test -json's events, else FormatGoText.
func GoFormat(sample []byte) string {
	if bytes.Contains(sample, []byte(`"Action":"`)) {
		return FormatGoJSON
	}
	return FormatGoText
}

func (p *goTextParser) line(l string) {
	if p.packageLine(l) || p.buildLine(l) {
		return
	}
	b := p.blk
	switch b.end.line(l) {
	case goTimeoutLine:
		b.owner, b.culprit = "", ""
		return
	case goPanicLine:
		p.panicked(l)
		return
	}
	switch {
	case b.end.timeout != "":
		return // the alarm's list of tests and goroutine dump: goEnd's
	case b.culprit != "":
		b.add(b.culprit, l) // the panic's trace
		return
	case strings.HasPrefix(l, "=== "):
		p.event(l)
		return
	}
	if indent, verdict, name, d, ok := goResultHeader(l); ok {
		p.result(indent, verdict, name, d)
		return
	}
	b.header = false
	t := strings.TrimSpace(l)
	switch {
	case l == "PASS" || l == "FAIL":
		// The binary's verdict comes after its tests: under -v, a
		// test's own "PASS" line is not it.
		if len(b.running) == 0 {
			b.verdict = l
			return
		}
	case strings.HasPrefix(l, "exit status "):
		b.exitStatus = t
		return
	}
	if owner := b.ownerOf(l); owner != "" {
		b.add(owner, b.dedent(l))
		return
	}
	b.lastFail = ""
	if b.pending.Len() < maxMessage {
		b.pending.WriteString(l + "\n")
	}
	b.pendingRace = b.pendingRace || isRaceStart(l)
}

// packageLine reads go test's line for a package; false when l is not one.
func (p *goTextParser) packageLine(l string) bool {
	var verdict, rest string
	switch {
	case strings.HasPrefix(l, "ok  \t"):
		verdict, rest = "ok", l[len("ok  \t"):]
	case strings.HasPrefix(l, "FAIL\t"):
		verdict, rest = "FAIL", l[len("FAIL\t"):]
	case strings.HasPrefix(l, "?   \t"):
		pkg, _, _ := strings.Cut(l[len("?   \t"):], "\t")
		p.rep.testEvents = true
		p.rep.Notes = append(p.rep.Notes, pkg+": no test files")
		return true
	case strings.HasPrefix(l, "\t") && strings.Contains(l, "\t\tcoverage: "):
		// A package without tests in a coverage run: its 0% in place of
		// "[no test files]".
		pkg, _, _ := strings.Cut(l[1:], "\t")
		if pkg == "" || strings.ContainsAny(pkg, " ") {
			return false
		}
		p.rep.testEvents = true
		p.rep.Notes = append(p.rep.Notes, pkg+": no test files")
		return true
	default:
		return false
	}
	pkg := rest
	if i := strings.IndexAny(rest, " \t"); i >= 0 {
		pkg, rest = rest[:i], rest[i:]
	} else {
		rest = ""
	}
	if pkg == "" {
		return false
	}
	p.buildPkg = ""
	p.rep.testEvents = true
	if verdict == "FAIL" && (strings.Contains(rest, "[build failed]") || strings.Contains(rest, "[setup failed]")) {
		for _, e := range p.build[pkg] {
			p.rep.BuildErrors = addDistinct(p.rep.BuildErrors, e)
		}
		delete(p.build, pkg)
		p.rep.RunnerErrors = addDistinct(p.rep.RunnerErrors, strings.TrimSpace(l))
		return true
	}
	p.endBlock(pkg, verdict, rest)
	return true
}

// buildLine reads the compiler's lines: "# pkg", then its errors, held
// until go test says the package's build failed.
func (p *goTextParser) buildLine(l string) bool {
	if pkg, ok := strings.CutPrefix(l, "# "); ok && p.blk.culprit == "" && p.blk.end.timeout == "" {
		// "# example.com/m/p [example.com/m/p.test]", "# [example.com/m/p]"
		f := strings.Fields(pkg)
		if len(f) == 0 {
			return false
		}
		pkg = f[len(f)-1]
		if len(f) > 1 || strings.HasPrefix(pkg, "[") {
			pkg = strings.TrimSuffix(strings.Trim(pkg, "[]"), ".test")
		}
		p.buildPkg = pkg
		return true
	}
	if p.buildPkg == "" {
		return false
	}
	if strings.HasPrefix(l, "=== ") || strings.HasPrefix(strings.TrimLeft(l, " "), "--- ") || l == "PASS" || l == "FAIL" {
		p.buildPkg = ""
		return false
	}
	if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "\t") && len(p.build[p.buildPkg]) < maxErrors {
		p.build[p.buildPkg] = append(p.build[p.buildPkg], l)
	}
	return true
}

// event reads "=== RUN   TestX", "=== PAUSE", "=== CONT", "=== NAME".
func (p *goTextParser) event(l string) {
	b := p.blk
	b.header, b.lastFail, b.fromHeader = false, "", false
	what, name, _ := strings.Cut(l[len("=== "):], " ")
	name = strings.TrimSpace(name)
	if name == "" {
		return
	}
	switch what {
	case "RUN":
		b.verbose = true
		b.caseFor(name).Status = Errored // until its result
		b.running = append(b.running, name)
		b.owner = name
	case "CONT", "NAME":
		b.owner = name
	}
}

// goResultHeader reads "--- FAIL: TestX/sub (0.00s)", indented by a
// subtest's depth.
func goResultHeader(l string) (indent int, verdict, name string, d time.Duration, ok bool) {
	t := strings.TrimLeft(l, " ")
	rest, found := strings.CutPrefix(t, "--- ")
	if !found {
		return 0, "", "", 0, false
	}
	verdict, rest, found = strings.Cut(rest, ": ")
	if !found || verdict != "PASS" && verdict != "FAIL" && verdict != "SKIP" {
		return 0, "", "", 0, false
	}
	i := strings.LastIndex(rest, " (")
	if i <= 0 || !strings.HasSuffix(rest, "s)") {
		return 0, "", "", 0, false
	}
	d, err := time.ParseDuration(rest[i+2 : len(rest)-1])
	if err != nil {
		return 0, "", "", 0, false
	}
	return len(l) - len(t), verdict, rest[:i], d, true
}

// result reads a test's result line. A failed or skipped test's output
// follows it without -v; a race report just before it is its race.
func (p *goTextParser) result(indent int, verdict, name string, d time.Duration) {
	b := p.blk
	c := b.caseFor(name)
	c.Duration = d
	switch verdict {
	case "PASS":
		c.Status = Passed
		delete(b.output, name) // a passed test has no message
	case "SKIP":
		c.Status = Skipped
	case "FAIL":
		c.Status = Failed
		b.failed = true
		if !b.header || b.lastFail == "" {
			b.lastFail = name
		}
		if b.pendingRace {
			b.add(name, b.pending.String())
		}
	}
	b.pending.Reset()
	b.pendingRace = false
	b.removeRunning(name)
	b.header = true
	b.owner, b.ownerIndent, b.fromHeader = "", indent, verdict != "PASS"
	if b.fromHeader {
		b.owner = name
	}
}

// panicked reads a panic's first line: the binary dies of it. A test's
// own panic is re-panicked by the testing package ("[recovered]") after it
// printed the test's "--- FAIL" line (and its parents'): that test
// crashed, as go test -json reports it. A goroutine's panic is the running
// test's, under -v; without -v, no line names it.
func (p *goTextParser) panicked(l string) {
	b := p.blk
	switch {
	case strings.Contains(l, "[recovered") && b.lastFail != "":
		b.culprit = b.lastFail
	case b.runningTest() != "":
		b.culprit = b.runningTest()
	case b.lastFail != "":
		b.culprit = b.lastFail
	default:
		b.culprit = UnnamedCase
	}
	c := b.caseFor(b.culprit)
	if c.Status == "" {
		c.Status = Crashed
	}
	b.add(b.culprit, l)
}

// endBlock ends the block with its package's line: verdict "ok" or
// "FAIL", rest what follows the package ("\t0.01s", "\t(cached)",
// " [no tests to run]"); verdict "" when the log ended first.
func (p *goTextParser) endBlock(pkg, verdict, rest string) {
	b := p.blk
	p.blk = newGoTextBlock()
	if !b.active() && verdict == "" {
		return
	}
	p.rep.testEvents = true
	how := b.howEnded(verdict)
	// Tests the alarm named that -v did not show start.
	for _, t := range b.end.running {
		if _, ok := b.index[t]; !ok {
			b.caseFor(t).Status = Errored
			b.running = append(b.running, t)
		}
	}
	cut := len(p.rep.CutShort)
	for _, t := range b.running {
		b.failed = true
		c := b.caseFor(t)
		c.Status = Errored
		why := "the test binary ended before the test finished (" + how + ")"
		switch {
		case b.end.timedOut(t):
			b.end.timedOutCase(c)
			continue
		case b.end.timeout != "":
		case b.end.panicked:
			c.Status = Crashed
			why = "the test binary exited before the test finished"
		default:
			p.rep.cutShort(pkg, t, how)
		}
		b.message(c)
		c.Message = bound(strings.TrimSpace(why + "\n" + c.Message))
	}
	running := map[string]bool{}
	for _, t := range b.running {
		running[t] = true
	}
	for i := range b.cases {
		c := &b.cases[i]
		c.Suite = pkg
		if c.Name == b.culprit {
			c.Status = Crashed
			p.rep.crashSeen = true
		}
		if !running[c.Name] && c.Status != Passed {
			b.message(c)
		}
		p.rep.Cases = append(p.rep.Cases, *c)
	}
	if len(p.rep.CutShort) > cut || b.end.panicked || b.end.timeout != "" && b.failed {
		return
	}
	p.endPackage(b, pkg, verdict, rest, how)
}

// endPackage judges the package by its line and the binary's verdict,
// when no test did.
func (p *goTextParser) endPackage(b *goTextBlock, pkg, verdict, rest, how string) {
	switch {
	case verdict == "":
		p.rep.cutShort(pkg, "", "the output ended before the package reported its result")
	case verdict == "ok" && strings.Contains(rest, "[no tests to run]"):
		p.rep.Notes = append(p.rep.Notes, pkg+": no tests to run")
	case verdict == "ok" && b.verdict == "PASS":
		if len(b.cases) == 0 {
			p.passPackage(pkg) // go test in the package's directory, without -v
		}
	case verdict == "ok" && (b.verbose || len(b.cases) > 0):
		p.rep.cutShort(pkg, "", "exit 0 without the test binary's PASS line")
	case verdict == "ok":
		p.passPackage(pkg)
		if !p.quiet {
			p.quiet = true
			p.rep.Notes = append(p.rep.Notes, "go test ran without -v: a passing package's tests and its test binary's PASS line are not shown, "+
				"so a test that ended the binary with exit 0 (syscall.Exit(0)) cannot be told from a pass; each passing package counts as one test. "+
				"go test -v or -json shows them")
		}
	case b.failed:
	case b.verdict == "PASS":
		p.rep.RunnerErrors = addDistinct(p.rep.RunnerErrors, pkg+": go test reports FAIL after the test binary's PASS line ("+how+")")
	default:
		p.rep.cutShort(pkg, "", how+" without the test binary's FAIL line")
	}
}

// passPackage counts a package whose tests are not listed as one passed
// case, named after it.
func (p *goTextParser) passPackage(pkg string) {
	p.rep.Cases = append(p.rep.Cases, Case{Suite: pkg, Name: pkg, Status: Passed})
}
