package testreport

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// goEvent is one test2json event (`go test -json`).
type goEvent struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// goParser follows the events of `go test -json`. Output is attributed to
// the test named in the event; a package that ends ("fail") while one of its
// tests is still running means the test binary died under that test: a
// panic makes it crashed, anything else (os.Exit, log.Fatal, a timeout)
// errored.
type goParser struct {
	rep     *Report
	index   map[string]int      // package + "\x00" + test -> Cases index
	running map[string][]string // package -> tests started and not finished
	output  map[string]*strings.Builder
	panics  map[string]bool // package+test whose output shows "panic:"
}

func parseGoJSON(r io.Reader) (*Report, error) {
	p := &goParser{
		rep:     &Report{Format: FormatGoJSON},
		index:   map[string]int{},
		running: map[string][]string{},
		output:  map[string]*strings.Builder{},
		panics:  map[string]bool{},
	}
	err := lines(r, p.line)
	if err != nil {
		return nil, err
	}
	// Input that stops mid-run (the runner was killed): what was running
	// never finished.
	for pkg := range p.running {
		p.endRunning(pkg, "output ended while the test was running")
	}
	return p.rep, nil
}

func (p *goParser) line(line string) {
	if !strings.HasPrefix(line, "{") {
		// Build errors and the like go to stderr, outside the JSON stream.
		if strings.Contains(line, ": ") && (strings.Contains(line, ".go:") || strings.HasPrefix(line, "# ")) {
			if !strings.HasPrefix(line, "# ") {
				p.rep.BuildErrors = addDistinct(p.rep.BuildErrors, line)
			}
		}
		return
	}
	var ev goEvent
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		p.rep.Notes = append(p.rep.Notes, fmt.Sprintf("skipping a line that is not a test2json event: %.80q", line))
		return
	}
	key := ev.Package + "\x00" + ev.Test
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
		p.endTest(key, ev)
	}
}

func (p *goParser) caseFor(ev goEvent) *Case {
	key := ev.Package + "\x00" + ev.Test
	if i, ok := p.index[key]; ok {
		return &p.rep.Cases[i]
	}
	p.index[key] = len(p.rep.Cases)
	p.rep.Cases = append(p.rep.Cases, Case{Suite: ev.Package, Name: ev.Test, Status: Errored})
	return &p.rep.Cases[len(p.rep.Cases)-1]
}

func (p *goParser) collect(key string, ev goEvent) {
	out := ev.Output
	if strings.HasPrefix(strings.TrimLeft(out, " "), "panic: ") {
		p.panics[key] = true
		p.panics[ev.Package+"\x00"] = true
	}
	if ev.Test == "" {
		switch {
		case strings.Contains(out, "[no test files]"):
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
		key = ev.Package + "\x00" + run[len(run)-1]
	}
	b := p.output[key]
	if b == nil {
		b = &strings.Builder{}
		p.output[key] = b
	}
	if b.Len() < maxMessage {
		b.WriteString(out)
	}
}

func (p *goParser) endTest(key string, ev goEvent) {
	c := p.caseFor(ev)
	c.Duration = time.Duration(ev.Elapsed * float64(time.Second))
	switch ev.Action {
	case "pass":
		c.Status = Passed
	case "skip":
		c.Status = Skipped
	case "fail":
		c.Status = Failed
		if p.panics[key] {
			c.Status = Crashed
		}
		p.setMessage(c, key)
	}
	p.removeRunning(ev.Package, ev.Test)
}

func (p *goParser) setMessage(c *Case, key string) {
	if b := p.output[key]; b != nil {
		var keep []string
		for _, l := range strings.SplitAfter(b.String(), "\n") {
			t := strings.TrimSpace(l)
			if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
				continue
			}
			keep = append(keep, l)
		}
		c.Message = bound(strings.TrimRight(strings.Join(keep, ""), "\n"))
		c.File, c.Line = goLocation(c.Message)
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
// the test binary.
func (p *goParser) endPackage(ev goEvent) {
	if ev.Action == "fail" {
		p.endRunning(ev.Package, "the test binary exited before the test finished")
	}
	delete(p.running, ev.Package)
}

func (p *goParser) endRunning(pkg, why string) {
	for _, test := range p.running[pkg] {
		key := pkg + "\x00" + test
		c := p.caseFor(goEvent{Package: pkg, Test: test})
		c.Status = Errored
		if p.panics[key] || p.panics[pkg+"\x00"] {
			c.Status = Crashed
		}
		p.setMessage(c, key)
		c.Message = bound(strings.TrimSpace(why + "\n" + c.Message))
	}
	delete(p.running, pkg)
}
