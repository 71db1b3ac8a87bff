package testreport

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// parseJUnit streams a JUnit XML document: <testsuites>/<testsuite>/<testcase>
// with <failure>, <error> and <skipped> children, in the dialects of CTest,
// go-junit-report, xcbeautify, Maven Surefire and pytest. The tool summary is
// the tests/failures/errors attributes of the root (or of the top-level
// suites when the root has none).
func parseJUnit(r io.Reader) (*Report, error) {
	dec := xml.NewDecoder(r)
	dec.Strict = false
	p := &junitParser{rep: &Report{Format: FormatJUnit}}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("parsing JUnit XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			p.start(t)
		case xml.CharData:
			if p.inFail && p.text.Len() < maxMessage {
				p.text.Write(t)
			}
			if p.inOut {
				p.watch.Write(t)
				p.out.Write(t)
			}
		case xml.EndElement:
			p.end(t)
		}
	}
	p.rep.ToolSummary = p.tally.summary()
	return p.rep, nil
}

// junitParser is the state of reading a JUnit XML document.
type junitParser struct {
	rep    *Report
	suites []string // enclosing testsuite names
	cur    *Case    // testcase being read
	inFail bool     // inside <failure> or <error>: collect text
	inOut  bool     // inside the case's <system-out>
	watch  *frameworkWatch
	out    *programOutput // the case's output, for its framework's reader
	text   strings.Builder
	depth  int
	tally  junitTally
}

func (p *junitParser) start(t xml.StartElement) {
	p.depth++
	switch t.Name.Local {
	case "testsuites":
		if p.depth == 1 {
			p.tally.root(t.Attr)
		}
	case "testsuite":
		if len(p.suites) == 0 {
			p.tally.suite(t.Attr)
		}
		p.suites = append(p.suites, attr(t.Attr, "name"))
	case "testcase":
		p.cur = junitCase(t.Attr, p.suites)
		p.watch, p.out = &frameworkWatch{}, &programOutput{}
	case "system-out":
		p.inOut = p.cur != nil
		if p.cur != nil {
			p.cur.outputKept = true
		}
	case "failure", "error":
		if p.cur != nil {
			p.cur.Status = Failed
			if t.Name.Local == "error" {
				p.cur.Status = Errored
			}
			p.cur.Message = attr(t.Attr, "message")
			p.inFail = true
			p.text.Reset()
		}
	case "skipped":
		if p.cur != nil {
			p.cur.Status = Skipped
			p.cur.Message = attr(t.Attr, "message")
		}
	}
}

func (p *junitParser) end(t xml.EndElement) {
	p.depth--
	switch t.Name.Local {
	case "testsuite":
		if len(p.suites) > 0 {
			p.suites = p.suites[:len(p.suites)-1]
		}
	case "system-out":
		p.inOut = false
	case "testcase":
		p.endCase()
	case "failure", "error":
		if cur := p.cur; cur != nil && p.inFail {
			if body := strings.TrimSpace(p.text.String()); body != "" && body != cur.Message {
				cur.Message = strings.TrimSpace(cur.Message + "\n" + body)
			}
			cur.Message = bound(cur.Message)
			p.inFail = false
		}
	}
}

// endCase records the testcase just read.
func (p *junitParser) endCase() {
	cur := p.cur
	if cur == nil {
		return
	}
	fw := p.watch.cutShort() // ends the last line too
	if !p.watch.truncated {
		cur.Closing = strings.ToValidUTF8(string(p.watch.last), "")
		cur.OutputLines = p.watch.lines
	}
	cur.outputKept = cur.outputKept && !p.watch.truncated && !p.out.truncated
	passed := cur.Status == Passed
	cut := cur.adoptFramework(p.out.framework(), p.watch.truncated || p.out.truncated)
	switch {
	case fw != "" && passed:
		// Exit 0 passed it; its own framework never finished.
		how := "exit 0 before " + fw + "'s summary"
		if cut != nil && cut.Test != "" {
			how += ", while running " + cut.Test
		}
		if cur.Status == Passed || cur.Status == Errored {
			cur.Status, cur.Message, cur.overruled = Errored, "the test program ended early: "+how, true
		}
		p.rep.cutShort(cur.Suite, cur.Name, how)
	case cut != nil && passed:
		p.rep.cutShort(cur.Suite, cur.Name, cut.afterExitZero())
	}
	p.rep.Cases = append(p.rep.Cases, *cur)
	p.cur = nil
}

func junitCase(attrs []xml.Attr, suites []string) *Case {
	c := &Case{Name: attr(attrs, "name"), Status: Passed, File: attr(attrs, "file")}
	c.Suite = attr(attrs, "classname")
	if c.Suite == "" && len(suites) > 0 {
		c.Suite = suites[len(suites)-1]
	}
	if secs, err := strconv.ParseFloat(attr(attrs, "time"), 64); err == nil && secs >= 0 {
		c.Duration = time.Duration(secs * float64(time.Second))
	}
	c.Line, _ = strconv.Atoi(attr(attrs, "line"))
	switch attr(attrs, "status") { // CTest: run, fail, notrun, disabled
	case "notrun", "disabled", "skipped":
		c.Status = Skipped
	}
	return c
}

// junitTally reads the counts the producer wrote on the root or top suites.
type junitTally struct {
	fromRoot, any          bool
	tests, failed, skipped int
}

func (t *junitTally) root(attrs []xml.Attr) {
	if attr(attrs, "tests") == "" {
		return
	}
	t.fromRoot, t.any = true, true
	t.add(attrs)
}

func (t *junitTally) suite(attrs []xml.Attr) {
	if t.fromRoot || attr(attrs, "tests") == "" {
		return
	}
	t.any = true
	t.add(attrs)
}

func (t *junitTally) add(attrs []xml.Attr) {
	n := func(name string) int { v, _ := strconv.Atoi(attr(attrs, name)); return v }
	t.tests += n("tests")
	t.failed += n("failures") + n("errors")
	t.skipped += n("skipped") + n("disabled")
}

func (t *junitTally) summary() *ToolSummary {
	if !t.any {
		return nil
	}
	return &ToolSummary{Total: t.tests, Failed: t.failed, Skipped: t.skipped, Passed: t.tests - t.failed - t.skipped}
}

func attr(attrs []xml.Attr, name string) string {
	for _, a := range attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}
