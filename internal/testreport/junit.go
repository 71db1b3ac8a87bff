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
	rep := &Report{Format: FormatJUnit}
	dec := xml.NewDecoder(r)
	dec.Strict = false
	var (
		suites []string // enclosing testsuite names
		cur    *Case    // testcase being read
		inFail bool     // inside <failure> or <error>: collect text
		inOut  bool     // inside the case's <system-out>
		watch  *frameworkWatch
		text   strings.Builder
		depth  int
		tally  junitTally
	)
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
			depth++
			switch t.Name.Local {
			case "testsuites":
				if depth == 1 {
					tally.root(t.Attr)
				}
			case "testsuite":
				if len(suites) == 0 {
					tally.suite(t.Attr)
				}
				suites = append(suites, attr(t.Attr, "name"))
			case "testcase":
				cur = junitCase(t.Attr, suites)
				watch = &frameworkWatch{}
			case "system-out":
				inOut = cur != nil
			case "failure", "error":
				if cur != nil {
					cur.Status = Failed
					if t.Name.Local == "error" {
						cur.Status = Errored
					}
					cur.Message = attr(t.Attr, "message")
					inFail = true
					text.Reset()
				}
			case "skipped":
				if cur != nil {
					cur.Status = Skipped
					cur.Message = attr(t.Attr, "message")
				}
			}
		case xml.CharData:
			if inFail && text.Len() < maxMessage {
				text.Write(t)
			}
			if inOut {
				watch.Write(t)
			}
		case xml.EndElement:
			depth--
			switch t.Name.Local {
			case "testsuite":
				if len(suites) > 0 {
					suites = suites[:len(suites)-1]
				}
			case "system-out":
				inOut = false
			case "testcase":
				if cur != nil {
					if fw := watch.cutShort(); fw != "" && cur.Status == Passed {
						// Exit 0 passed it; its own framework never finished.
						how := "exit 0 before " + fw + "'s summary"
						cur.Status, cur.Message = Errored, "the test program ended early: "+how
						rep.cutShort(cur.Suite, cur.Name, how)
					}
					rep.Cases = append(rep.Cases, *cur)
					cur = nil
				}
			case "failure", "error":
				if cur != nil && inFail {
					if body := strings.TrimSpace(text.String()); body != "" && body != cur.Message {
						cur.Message = strings.TrimSpace(cur.Message + "\n" + body)
					}
					cur.Message = bound(cur.Message)
					inFail = false
				}
			}
		}
	}
	rep.ToolSummary = tally.summary()
	return rep, nil
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
