package testreport

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

var (
	// "test tests::wrong ... FAILED", "test slow ... ignored, needs network"
	cargoCaseRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^test (\S+) \.\.\. (ok|FAILED|ignored|bench:)?(.*)$`)
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
type cargoParser struct {
	rep     *Report
	suite   string
	index   map[string]int
	section string // test whose "---- x stdout ----" section is being read
	pending []int  // cases started without a result
}

func parseCargo(r io.Reader) (*Report, error) {
	p := &cargoParser{rep: &Report{Format: FormatCargo}, index: map[string]int{}}
	if err := lines(r, p.line); err != nil {
		return nil, err
	}
	p.endPending(Errored, "the test binary ended before reporting a result")
	return p.rep, nil
}

func (p *cargoParser) line(line string) {
	t := strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(t, "Running "):
		p.endPending(Errored, "the test binary ended before reporting a result")
		p.suite = strings.TrimPrefix(t, "Running ")
		if i := strings.Index(p.suite, " ("); i > 0 {
			p.suite = p.suite[:i]
		}
	case strings.HasPrefix(line, "test ") && strings.Contains(line, " ... "):
		p.caseLine(line)
	case strings.HasPrefix(line, "---- ") && strings.HasSuffix(line, " ----"):
		name := strings.TrimSuffix(strings.TrimPrefix(line, "---- "), " ----")
		p.section = strings.TrimSuffix(strings.TrimSuffix(name, " stdout"), " stderr")
	case line == "failures:" || strings.HasPrefix(line, "test result: "):
		p.section = ""
		if m := cargoResultRE().FindStringSubmatch(line); m != nil {
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
		}
	case strings.Contains(line, "process didn't exit successfully") && strings.Contains(line, "(signal: "):
		p.binaryKilled(strings.TrimSpace(line))
	case strings.HasSuffix(line, " has overflowed its stack"):
		p.overflowed(line)
	case strings.HasPrefix(line, "error: could not compile"), strings.HasPrefix(line, "error[E"):
		p.rep.BuildErrors = addDistinct(p.rep.BuildErrors, line)
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
	}
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
