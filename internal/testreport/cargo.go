package testreport

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

var (
	// "test tests::wrong ... FAILED", "test slow ... ignored, needs network"
	cargoCaseRE = sync.OnceValue(func() *regexp.Regexp {
		// Doc tests have spaces in their names: "test src/lib.rs - add (line 3) ... ok".
		return regexp.MustCompile(`^test (.+?) \.\.\. (ok|FAILED|ignored|bench:)?(.*)$`)
	})
	// "test result: FAILED. 1 passed; 2 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.15s"
	cargoResultRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^test result: (\w+)\. (\d+) passed; (\d+) failed; (\d+) ignored`)
	})
	// "thread 'tests::wrong' (16541) panicked at src/lib.rs:9:18:"
	cargoPanicRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^thread '([^']*)'(?: \(\d+\))? panicked at ([^:]+):(\d+):(\d+):?(.*)$`)
	})
)

// cargoParser reads libtest's text output. A test binary that dies (a
// signal, an abort) leaves a "test x ... " line with no result and cargo
// reports "process didn't exit successfully ... (signal: 11, SIGSEGV ...)".
//
// Each test binary announces "running N tests" and ends with its own "test
// result:" line. One that ends without it was cut short: exit(0) inside a
// test ends the binary with success, and cargo goes on to the next one.
type cargoParser struct {
	rep     *Report
	suite   string
	index   map[string]int
	section string // test whose "---- x stdout ----" section is being read
	pending []int  // cases started without a result

	// The test binary being read.
	running  int    // tests it announced; -1 before "running N tests"
	results  int    // results it printed
	summary  bool   // its "test result:" line came
	exitHow  string // "exit status: 3" from cargo's "process didn't exit successfully"
	suiteIdx int    // index of its first case
	binary   string // its path, from cargo's "Running x (path)"

	rerun rerunState // a rerun of a cut-short binary's unreported tests (culprit.go)

	rustcErr string // a compiler error whose location may be on the next line
}

func parseCargo(r io.Reader) (*Report, error) {
	p := &cargoParser{rep: &Report{Format: FormatCargo}, index: map[string]int{}, running: -1}
	if err := lines(r, p.line); err != nil {
		return nil, err
	}
	if e := rustcBuildError(p.rustcErr, ""); p.rustcErr != "" && e != "" {
		p.rep.BuildErrors = addDistinct(p.rep.BuildErrors, e)
	}
	p.endBinary("the output ended")
	p.endPending(Errored, "the test binary ended before reporting a result")
	p.endRerun()
	return p.rep, nil
}

// startBinary begins the test binary of a "Running …" or "Doc-tests …"
// line (t, trimmed).
func (p *cargoParser) startBinary(t string) {
	// cargo runs the next binary only after this one succeeded.
	p.endBinary("exit 0")
	p.endPending(Errored, "the test binary ended before reporting a result")
	p.suite = strings.TrimPrefix(strings.TrimPrefix(t, "Running "), "Doc-tests ")
	p.binary = ""
	if i := strings.Index(p.suite, " ("); i > 0 {
		p.binary = strings.TrimSuffix(p.suite[i+2:], ")")
		p.suite = p.suite[:i]
	}
}

// result records a binary's "test result: FAILED. 1 passed; 2 failed; …".
func (p *cargoParser) result(line string, m []string) {
	ts := p.rep.summary()
	passed, _ := strconv.Atoi(m[2])
	failed, _ := strconv.Atoi(m[3])
	ignored, _ := strconv.Atoi(m[4])
	addTally(&ts.Passed, passed)
	addTally(&ts.Failed, failed)
	addTally(&ts.Skipped, ignored)
	addTally(&ts.Total, passed+failed+ignored)
	ts.Verdict = "test result: " + m[1]
	ts.addLine(line)
	p.summary = true
}

func (p *cargoParser) line(line string) {
	if p.rerunLine(line) {
		return
	}
	if p.rustcErr != "" {
		if e := rustcBuildError(p.rustcErr, line); e != "" {
			p.rep.BuildErrors = addDistinct(p.rep.BuildErrors, e)
		}
		p.rustcErr = ""
	}
	t := strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(t, "Running ") || strings.HasPrefix(t, "Doc-tests "):
		p.startBinary(t)
	case strings.HasPrefix(line, "running ") && (strings.HasSuffix(line, " tests") || strings.HasSuffix(line, " test")):
		if n, err := strconv.Atoi(strings.Fields(line)[1]); err == nil && len(strings.Fields(line)) == 3 {
			p.endBinary("the output ended")
			p.running, p.results, p.summary, p.exitHow, p.suiteIdx = n, 0, false, "", len(p.rep.Cases)
		}
	case strings.HasPrefix(line, "test ") && strings.Contains(line, " ... "):
		p.caseLine(line)
	case strings.HasPrefix(line, "---- ") && strings.HasSuffix(line, " ----"):
		name := strings.TrimSuffix(strings.TrimPrefix(line, "---- "), " ----")
		p.section = strings.TrimSuffix(strings.TrimSuffix(name, " stdout"), " stderr")
	case line == "failures:" || strings.HasPrefix(line, "test result: "):
		p.section = ""
		if m := cargoResultRE().FindStringSubmatch(line); m != nil {
			p.result(line, m)
		}
	case strings.Contains(line, "process didn't exit successfully") && strings.Contains(line, "(signal: "):
		p.binaryKilled(strings.TrimSpace(line))
	case strings.Contains(line, "process didn't exit successfully") && strings.Contains(line, "(exit status: "):
		how := line[strings.LastIndex(line, "(exit status: ")+1:]
		p.exitHow = strings.TrimSuffix(how, ")")
	case strings.HasSuffix(line, " has overflowed its stack"):
		p.overflowed(line)
	case strings.HasPrefix(line, "error: could not compile"):
		p.rep.BuildErrors = addDistinct(p.rep.BuildErrors, line)
	case isRustcError(line):
		p.rustcErr = line // recorded with the location on the next line
	case p.section != "":
		p.sectionLine(line)
	}
}

func (p *cargoParser) caseLine(line string) {
	m := cargoCaseRE().FindStringSubmatch(line)
	if m == nil {
		return
	}
	key := p.suite + "\x00" + m[1]
	i, ok := p.index[key]
	if !ok {
		i = len(p.rep.Cases)
		p.index[key] = i
		p.rep.Cases = append(p.rep.Cases, Case{Suite: p.suite, Name: m[1], Status: Errored})
	}
	c := &p.rep.Cases[i]
	switch m[2] {
	case "ok", "bench:":
		c.Status = Passed
	case "FAILED":
		c.Status = Failed
	case "ignored":
		c.Status = Skipped
		c.Message = strings.TrimPrefix(strings.TrimSpace(m[3]), ", ")
	default:
		p.pending = append(p.pending, i)
		// The binary ended with no newline after "test x ... ", and cargo's
		// next line ran into this one.
		if rest := strings.TrimSpace(m[3]); strings.HasPrefix(rest, "Running ") || strings.HasPrefix(rest, "Doc-tests ") ||
			strings.HasPrefix(rest, "error: ") {
			p.line(rest)
		}
		return
	}
	p.results++
}

// endBinary ends the test binary being read: without its "test result:"
// line it was cut short, under the test that printed no result or, when
// tests run in parallel and print only once finished, with tests missing.
func (p *cargoParser) endBinary(how string) {
	if p.running < 0 || p.summary {
		p.running = -1
		return
	}
	if p.exitHow != "" {
		how = p.exitHow
	}
	for _, c := range p.rep.Cases[p.suiteIdx:] {
		if c.Status == Crashed {
			p.running = -1 // the crash says why it ended
			return
		}
	}
	named := false
	for _, i := range p.pending {
		c := &p.rep.Cases[i]
		if c.Status == Errored {
			c.Message = "the test binary ended before the test finished (" + how + ")"
			p.rep.cutShort(p.suite, c.Name, how)
			named = true
		}
	}
	if !named {
		missing := max(p.running-p.results, 0)
		p.rep.cutShort(p.suite, "", fmt.Sprintf("%s; %d of %d tests reported no result", how, missing, p.running))
		if n := len(p.rep.CutShort); n > 0 && p.rep.CutShort[n-1].Suite == p.suite {
			p.rep.CutShort[n-1].Binary = p.binary
		}
	}
	p.pending = nil
	p.running = -1
}

// sectionLine reads a failed test's captured output: the panic location
// and message.
func (p *cargoParser) sectionLine(line string) {
	i, ok := p.index[p.suite+"\x00"+p.section]
	if !ok {
		return
	}
	c := &p.rep.Cases[i]
	if m := cargoPanicRE().FindStringSubmatch(line); m != nil {
		c.File = m[2]
		c.Line, _ = strconv.Atoi(m[3])
		if msg := strings.TrimSpace(m[5]); msg != "" {
			c.Message = msg
		}
		return
	}
	if strings.HasPrefix(line, "stack backtrace:") || strings.HasPrefix(line, "note: ") || c.File == "" || len(c.Message) >= maxMessage {
		return
	}
	if strings.HasPrefix(line, "   ") && strings.Contains(line, ": ") && c.Message != "" && strings.Contains(c.Message, "\n   ") {
		return
	}
	if line == "" {
		return
	}
	if c.Message != "" {
		c.Message += "\n"
	}
	c.Message = bound(c.Message + line)
}

func (p *cargoParser) endPending(st Status, why string) {
	for _, i := range p.pending {
		c := &p.rep.Cases[i]
		if c.Status == Errored {
			c.Status = st
			c.Message = why
		}
	}
	p.pending = nil
}

// UnnamedCase names a test that crashed before the output named it: libtest
// prints a test's name only once it finishes (unless it runs one test at a
// time), so a test that aborts the binary is named only by its core.
const UnnamedCase = "(unnamed test)"

// overflowed reads libtest's "thread 'tests::deep' (1234) has overflowed its
// stack": the named test crashed the binary (SIGABRT follows).
//
// stderr's line may be cut by stdout's ("thread 'test tests::adds ... ok\n
// tests::deep' (1234) has overflowed its stack"), so the name is read back
// from the quote that ends it.
func (p *cargoParser) overflowed(line string) {
	line = strings.TrimSpace(line)
	end := strings.LastIndex(line, "' ")
	name := ""
	if end > 0 {
		name = line[:end]
		if i := strings.LastIndex(name, "thread '"); i >= 0 {
			name = name[i+len("thread '"):]
		}
	}
	if name == "" || strings.ContainsAny(name, "' ") || name == "main" || name == "<unnamed>" {
		p.rep.crashSeen = true
		return
	}
	p.crashCase(name, strings.TrimSpace(line))
}

// crashCase marks the test name of the current binary crashed.
func (p *cargoParser) crashCase(name, why string) {
	key := p.suite + "\x00" + name
	i, ok := p.index[key]
	if !ok {
		i = len(p.rep.Cases)
		p.index[key] = i
		p.rep.Cases = append(p.rep.Cases, Case{Suite: p.suite, Name: name})
	}
	c := &p.rep.Cases[i]
	c.Status, c.Message = Crashed, why
	p.rep.crashSeen = true
}

// binaryKilled reads cargo's "process didn't exit successfully: `…` (signal:
// 6, SIGABRT: process abort signal)": the tests of this binary that started
// and did not finish crashed. When none is known by name (libtest names
// tests as they finish), an unnamed case stands for the one that was running.
func (p *cargoParser) binaryKilled(line string) {
	var crashed []string
	for i := range p.rep.Cases {
		c := &p.rep.Cases[i]
		if c.Suite == p.suite && c.Status == Crashed {
			c.Message += "\n" + line
			crashed = append(crashed, c.Name)
		}
	}
	switch {
	case len(crashed) > 0:
		// A test named its own crash: the others that started did not
		// finish (or their result was lost in stderr's interleaving).
		p.endPending(Errored, "no result: the test binary was killed by the crash of "+strings.Join(crashed, ", "))
	case len(p.pending) > 0:
		p.endPending(Crashed, line)
	default:
		p.crashCase(UnnamedCase, line)
	}
	p.rep.crashSeen = true
}
