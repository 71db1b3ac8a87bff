package ciout

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/triage-dev/triage/internal/testreport"
)

// junitSuites is the root of a JUnit XML document.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr,omitempty"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr,omitempty"`
	Suites   []junitSuite `xml:"testsuite"`
}

// junitSuite is one <testsuite>: the cases of one Suite name, in order.
type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr,omitempty"`
	Cases    []junitCase `xml:"testcase"`
	dur      time.Duration
}

// junitCase is one <testcase>.
type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr,omitempty"`
	Time      string        `xml:"time,attr,omitempty"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

// junitMessage is a <failure>, <error> or <skipped>: its first line as the
// message attribute, the whole message as text.
type junitMessage struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the parsed tests as a JUnit XML document: one
// <testsuite> per suite name (in the order the suites first came), each
// case with its time, file and line where known, and a <failure> (failed),
// <error> (errored or crashed, its type saying which) or <skipped>.
func WriteJUnit(w io.Writer, rep *testreport.Report) error {
	doc := junitSuites{Name: rep.Format}
	index := map[string]int{}
	var total time.Duration
	for _, c := range rep.Cases {
		i, ok := index[c.Suite]
		if !ok {
			i = len(doc.Suites)
			index[c.Suite] = i
			doc.Suites = append(doc.Suites, junitSuite{Name: c.Suite})
		}
		s := &doc.Suites[i]
		jc := newJUnitCase(c)
		s.Tests++
		s.dur += c.Duration
		total += c.Duration
		switch {
		case jc.Failure != nil:
			s.Failures++
		case jc.Error != nil:
			s.Errors++
		case jc.Skipped != nil:
			s.Skipped++
		}
		s.Cases = append(s.Cases, jc)
	}
	for i := range doc.Suites {
		s := &doc.Suites[i]
		s.Time = seconds(s.dur)
		doc.Tests, doc.Failures, doc.Errors, doc.Skipped = doc.Tests+s.Tests, doc.Failures+s.Failures, doc.Errors+s.Errors, doc.Skipped+s.Skipped
	}
	doc.Time = seconds(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("writing JUnit XML: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// newJUnitCase is the <testcase> of one case.
func newJUnitCase(c testreport.Case) junitCase {
	jc := junitCase{Name: c.Name, Classname: c.Suite, File: c.File, Line: c.Line}
	if c.Duration > 0 {
		jc.Time = seconds(c.Duration)
	}
	msg := &junitMessage{Message: FirstLine(c.Message, 1000), Text: c.Message}
	switch c.Status {
	case testreport.Failed:
		msg.Type = CaseStatus(c)
		jc.Failure = msg
	case testreport.Errored, testreport.Crashed:
		msg.Type = CaseStatus(c)
		if msg.Message == "" {
			msg.Message = "test " + string(c.Status)
		}
		jc.Error = msg
	case testreport.Skipped:
		msg.Text = ""
		jc.Skipped = msg
	}
	return jc
}

// seconds is a duration in JUnit's form: seconds with millisecond digits.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}
