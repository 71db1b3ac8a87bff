package testreport

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/gotestjson"
)

// goParser follows the events of `go test -json`. Output is attributed to
// the test named in the event; a package that ends while one of its tests
// is still running means the test binary died under that test: a panic
// makes it crashed, anything else (os.Exit, syscall.Exit, log.Fatal)
// errored and cut short.
//
// A package passes only on positive evidence: its own "pass" event and the
// test binary's "PASS" line. A binary that exits 0 in the middle of a test
// (syscall.Exit(0), which the testing package does not intercept) makes
// `go test` itself report "ok": test2json then hands the package's "ok"
// line and "pass" event to the test that was running, and no PASS line
// comes.
type goParser struct {
	rep     *Report
	index   map[testKey]int     // -> Cases index
	running map[string][]string // package -> tests started and not finished
	output  map[testKey]*strings.Builder
	panics  map[testKey]bool // whose output shows "panic:"; test "" for the package
	pkgs    map[string]*goPackage
	order   []string            // packages in the order they appeared
	build   map[string][]string // import path -> compiler lines of a build not yet failed
	// resultIn marks a test whose output carried its package's result line
	// ("ok  \tpkg"): its pass/fail event is the package's.
	resultIn map[testKey]bool
}

// testKey names a test of a package (test "": the package itself).
type testKey struct{ pkg, test string }

// goPackage is what is known of one package's test binary.
type goPackage struct {
	ended       bool   // the package's own pass/fail/skip event came
	sawVerdict  bool   // the test binary printed PASS or FAIL
	exitStatus  string // "exit status 2", when go test printed it
	failedBuild bool
	testFailed  bool  // a test failed: its failure explains the package's
	end         goEnd // a panic or the -timeout alarm in its output
}

func parseGoJSON(r io.Reader) (*Report, error) {
	p := &goParser{
		rep:      &Report{Format: FormatGoJSON},
		index:    map[testKey]int{},
		running:  map[string][]string{},
		output:   map[testKey]*strings.Builder{},
		panics:   map[testKey]bool{},
		pkgs:     map[string]*goPackage{},
		build:    map[string][]string{},
		resultIn: map[testKey]bool{},
	}
	err := lines(r, p.line)
	if err != nil {
		return nil, err
	}
	// Input that stops mid-run (the runner was killed, the log cut): what
	// was running never finished, and a package with no verdict proves
	// nothing.
	for _, pkg := range p.order {
		if st := p.pkgs[pkg]; !st.ended {
			p.endRunning(pkg, "the output ended")
			if !p.cutShortIn(pkg) {
				p.rep.cutShort(pkg, "", "the output ended before the package reported its result")
			}
		}
	}
	if len(p.rep.BuildErrors) > 0 {
		// "FAIL pkg [build failed]" says no more than the compiler lines.
		p.rep.RunnerErrors = dropContaining(p.rep.RunnerErrors, "[build failed]")
	}
	return p.rep, nil
}

func (p *goParser) line(line string) {
	if !strings.HasPrefix(line, "{") {
		// Build errors and the like go to stderr, outside the JSON stream
		// (before Go 1.24, or with 2>&1).
		if strings.Contains(line, ": ") && (strings.Contains(line, ".go:") || strings.HasPrefix(line, "# ")) {
			if !strings.HasPrefix(line, "# ") {
				p.rep.BuildErrors = addDistinct(p.rep.BuildErrors, line)
			}
		}
		return
	}
	var ev gotestjson.Event
	if err := gotestjson.DecodeString(line, &ev); err != nil {
		p.rep.Notes = append(p.rep.Notes, fmt.Sprintf("skipping a line that is not a test2json event: %.80q", line))
		return
	}
	switch ev.Action {
	case "build-output":
		p.buildOutput(ev)
		return
	case "build-fail":
		p.buildFailed(ev.ImportPath)
		return
	}
	if ev.Package == "" {
		return
	}
	p.pkg(ev.Package)
	p.rep.testEvents = true
	key := testKey{ev.Package, ev.Test}
	switch ev.Action {
	case "run":
		p.caseFor(ev)
		p.running[ev.Package] = append(p.running[ev.Package], ev.Test)
	case "output":
		p.collect(key, ev)
	case "pass", "fail", "skip":
		if ev.Test == "" {
			p.endPackage(ev)
			return
		}
		if p.resultIn[key] {
			// test2json gave the package's verdict to the running test.
			ev.Test = ""
			p.endPackage(ev)
			return
		}
		p.endTest(key, ev)
	}
}

func (p *goParser) pkg(name string) *goPackage {
	st := p.pkgs[name]
	if st == nil {
		st = &goPackage{}
		p.pkgs[name] = st
		p.order = append(p.order, name)
	}
	return st
}

// buildOutput holds a compiler line until the build is known to have
// failed: a build that succeeds may print warnings (cgo) too.
func (p *goParser) buildOutput(ev gotestjson.Event) {
	l := strings.TrimRight(ev.Output, "\r\n")
	if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "# ") || len(p.build[ev.ImportPath]) >= maxErrors {
		return
	}
	p.build[ev.ImportPath] = append(p.build[ev.ImportPath], l)
}

func (p *goParser) buildFailed(importPath string) {
	for _, l := range p.build[importPath] {
		p.rep.BuildErrors = addDistinct(p.rep.BuildErrors, l)
	}
	delete(p.build, importPath)
}

func (p *goParser) caseFor(ev gotestjson.Event) *Case {
	key := testKey{ev.Package, ev.Test}
	if i, ok := p.index[key]; ok {
		return &p.rep.Cases[i]
	}
	// The event's strings are parts of its whole line: a case keeps copies,
	// not a line per test.
	key = testKey{strings.Clone(ev.Package), strings.Clone(ev.Test)}
	p.index[key] = len(p.rep.Cases)
	p.rep.Cases = append(p.rep.Cases, Case{Suite: key.pkg, Name: key.test, Status: Errored})
	return &p.rep.Cases[len(p.rep.Cases)-1]
}

func (p *goParser) collect(key testKey, ev gotestjson.Event) {
	out := ev.Output
	st := p.pkgs[ev.Package]
	if st.end.line(out) == goPanicLine {
		p.panics[key] = true
		p.panics[testKey{ev.Package, ""}] = true
	}
	switch t := strings.TrimSpace(out); {
	case ev.Test == "" && (t == "PASS" || t == "FAIL"):
		st.sawVerdict = true
	case strings.HasPrefix(t, "exit status "):
		st.exitStatus = t
	case ev.Test != "" && isGoResultLine(out, ev.Package):
		p.resultIn[key] = true
		return
	}
	if ev.Test == "" {
		switch {
		case strings.Contains(out, "[no test files]"):
			p.rep.Notes = append(p.rep.Notes, ev.Package+": no test files")
		case strings.HasPrefix(out, "\t"+ev.Package+"\t\tcoverage: "):
			// A package without tests in a coverage run: go test reports
			// its 0% in place of "[no test files]", with no binary run.
			st.sawVerdict = true
			p.rep.Notes = append(p.rep.Notes, ev.Package+": no test files")
		case strings.Contains(out, "[build failed]"), strings.Contains(out, "[setup failed]"):
			p.rep.RunnerErrors = addDistinct(p.rep.RunnerErrors, strings.TrimSpace(out))
		}
	}
	if ev.Test == "" && len(p.running[ev.Package]) > 0 {
		// Output after a test's last line and before the package verdict
		// (a panic's trace, os.Exit's "exit status") belongs to the last
		// running test.
		run := p.running[ev.Package]
		key = testKey{ev.Package, run[len(run)-1]}
	}
	b := p.output[key]
	if (b == nil || strings.HasSuffix(b.String(), "\n")) && strings.HasSuffix(out, "\n") && dropped(out) {
		return // a whole line setMessage would drop: most tests' only output
	}
	if b == nil {
		b = &strings.Builder{}
		p.output[key] = b
	}
	if b.Len() < maxMessage {
		b.WriteString(out)
	}
}

// dropped says whether setMessage leaves a line out of a message: blank,
// or the runner's own "=== RUN" or "--- PASS" line.
func dropped(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ")
}

func (p *goParser) endTest(key testKey, ev gotestjson.Event) {
	c := p.caseFor(ev)
	c.Duration = time.Duration(ev.Elapsed * float64(time.Second))
	switch ev.Action {
	case "pass":
		c.Status = Passed
	case "skip":
		c.Status = Skipped
		p.setMessage(c, key) // the t.Skip line says why
	case "fail":
		p.pkgs[ev.Package].testFailed = true
		c.Status = Failed
		if p.panics[key] {
			c.Status = Crashed
		}
		p.setMessage(c, key)
	}
	p.removeRunning(ev.Package, ev.Test)
}

func (p *goParser) setMessage(c *Case, key testKey) {
	if b := p.output[key]; b != nil {
		goCaseMessage(c, b.String())
	}
}

// goLocation finds "x_test.go:12: " at the start of a t.Error line.
func goLocation(msg string) (string, int) {
	first, _, _ := strings.Cut(strings.TrimSpace(msg), "\n")
	file, rest, ok := strings.Cut(first, ":")
	if !ok || !strings.HasSuffix(file, ".go") {
		return "", 0
	}
	n := 0
	for _, c := range rest {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	if n == 0 {
		return "", 0
	}
	return file, n
}

func (p *goParser) removeRunning(pkg, test string) {
	run := p.running[pkg]
	for i, t := range run {
		if t == test {
			p.running[pkg] = append(run[:i], run[i+1:]...)
			break
		}
	}
	if len(p.running[pkg]) == 0 {
		delete(p.running, pkg)
	}
}

// endPackage handles the package verdict: tests still running died with
// the test binary, and a pass needs the binary's own PASS line.
func (p *goParser) endPackage(ev gotestjson.Event) {
	st := p.pkg(ev.Package)
	st.ended = true
	if ev.FailedBuild != "" {
		st.failedBuild = true
		p.buildFailed(ev.FailedBuild)
	}
	how := st.exitStatus
	switch {
	case st.end.timeout != "":
		how = st.end.timeout
	case ev.Action == "pass":
		how = "exit 0"
	case how == "":
		how = "a non-zero exit"
	}
	p.endRunning(ev.Package, how)
	if p.cutShortIn(ev.Package) || ev.Action == "skip" || st.failedBuild || st.sawVerdict || p.panics[testKey{ev.Package, ""}] ||
		ev.Action == "fail" && st.testFailed {
		return
	}
	verdict := "FAIL"
	if ev.Action == "pass" {
		verdict = "PASS"
	}
	p.rep.cutShort(ev.Package, "", how+" without the test binary's "+verdict+" line")
}

// endRunning ends the tests of pkg still running: the binary ended under
// them (how says how). A test whose output shows a panic crashed; one the
// -timeout alarm named errored by the timeout; the others were cut short.
func (p *goParser) endRunning(pkg, how string) {
	end := &p.pkg(pkg).end
	for _, test := range p.running[pkg] {
		p.pkg(pkg).testFailed = true
		key := testKey{pkg, test}
		c := p.caseFor(gotestjson.Event{Package: pkg, Test: test})
		c.Status = Errored
		why := "the test binary ended before the test finished (" + how + ")"
		switch {
		case end.timedOut(test):
			end.timedOutCase(c)
			continue
		case end.timeout != "":
			// Not cut short: the alarm, which names the test it timed out, ended it.
		case p.panics[key] || p.panics[testKey{pkg, ""}]:
			c.Status = Crashed
			why = "the test binary exited before the test finished"
		default:
			p.rep.cutShort(pkg, test, how)
		}
		p.setMessage(c, key)
		c.Message = bound(strings.TrimSpace(why + "\n" + c.Message))
	}
	delete(p.running, pkg)
}

func (p *goParser) cutShortIn(pkg string) bool {
	for _, c := range p.rep.CutShort {
		if c.Suite == pkg {
			return true
		}
	}
	return false
}

// isGoResultLine matches go test's own line for a package: "ok  \tpkg\t0.1s",
// "FAIL\tpkg\t0.1s".
func isGoResultLine(out, pkg string) bool {
	// Cut piece by piece rather than compare with concatenations: this
	// runs on every output line of every test.
	for _, verdict := range [...]string{"ok  \t", "FAIL\t"} {
		if rest, ok := strings.CutPrefix(out, verdict); ok {
			rest, ok = strings.CutPrefix(rest, pkg)
			return ok && (strings.HasPrefix(rest, "\t") || strings.TrimRight(rest, "\n") == "")
		}
	}
	return false
}

func dropContaining(list []string, sub string) []string {
	out := list[:0]
	for _, s := range list {
		if !strings.Contains(s, sub) {
			out = append(out, s)
		}
	}
	return out
}
