package testreport

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// A runner's report file can know what its log does not: CTest's JUnit
// file holds every test program's own output, so a program that exited 0
// before its framework's summary is cut short there while the log says it
// passed. The pipeline adopts those findings (AdoptCutShort) and writes
// them into the log after a header ReportSectionHeader makes, one
// "  test: how" line each; the CTest parser reads the section back, so a
// log read later (triage filter) reaches the verdict the live run did.

const (
	reportSectionPrefix = "--- cut short according to "
	reportSectionSuffix = " ---"
	reportSectionIndent = "  "
)

// WriteReportSection writes the tests cut that short the report file names
// (as AdoptCutShort took them) into a log.
func WriteReportSection(w io.Writer, file string, cut []CutShort) error {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s%s%s\n", reportSectionPrefix, oneLine(file), reportSectionSuffix)
	for _, cs := range cut {
		if cs.Test == "" {
			continue
		}
		fmt.Fprintf(&b, "%s%s: %s\n", reportSectionIndent, oneLine(cs.Test), oneLine(cs.How))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// oneLine keeps a name or reason on its line.
func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }

// reportSection reads a report section out of a log, line by line.
type reportSection struct {
	active bool
	cut    []CutShort
}

// line takes the section's lines and reports whether line was one.
func (s *reportSection) line(line string) bool {
	t := strings.TrimRight(line, "\r")
	if strings.HasPrefix(t, reportSectionPrefix) && strings.HasSuffix(t, reportSectionSuffix) {
		s.active = true
		return true
	}
	if !s.active {
		return false
	}
	if rest, ok := strings.CutPrefix(t, reportSectionIndent); ok {
		if test, how, ok := strings.Cut(rest, ": "); ok && test != "" {
			s.cut = append(s.cut, CutShort{Test: test, How: how})
			return true
		}
	}
	s.active = false
	return false
}

// adopt applies the section's findings to rep, as the live run did.
func (s *reportSection) adopt(rep *Report) {
	if len(s.cut) > 0 {
		rep.AdoptCutShort(&Report{CutShort: s.cut})
	}
}

// automake keeps each test's output in NAME.log, not in the run's log; a
// failed test's own log that told more (ReadTestLogs) is copied into the
// run's log between these lines, and the automake parser reads it back.
const (
	testLogPrefix = "--- the own log of "
	testLogEnd    = "--- end of the own log of "
)

// writeTestLogSection copies a test's own log into the run's log.
func writeTestLogSection(w io.Writer, test, file string, log []byte) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "\n%s%s (%s)%s\n", testLogPrefix, oneLine(test), oneLine(file), reportSectionSuffix)
	b.Write(log)
	if len(log) > 0 && log[len(log)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%s%s%s\n", testLogEnd, oneLine(test), reportSectionSuffix)
	w.Write(b.Bytes())
}

// testLogSection reads copied test logs out of a run's log.
type testLogSection struct {
	test string // the test whose log is being read; "" outside a section
	buf  bytes.Buffer
}

// line takes a section's lines and reports whether line was one; at a
// section's end, the log is read into the last case of its test.
func (s *testLogSection) line(line string, rep *Report) bool {
	t := strings.TrimRight(line, "\r")
	if s.test == "" {
		rest, ok := strings.CutPrefix(t, testLogPrefix)
		if !ok || !strings.HasSuffix(rest, ")"+reportSectionSuffix) {
			return false
		}
		i := strings.LastIndex(rest, " (")
		if i <= 0 {
			return false
		}
		s.test = rest[:i]
		s.buf.Reset()
		return true
	}
	if t == testLogEnd+s.test+reportSectionSuffix {
		for i := len(rep.Cases) - 1; i >= 0; i-- {
			if rep.Cases[i].Name == s.test {
				rep.readTestLogFrom(&rep.Cases[i], &s.buf)
				break
			}
		}
		s.test = ""
		return true
	}
	if s.buf.Len()+len(line) < maxTestLog {
		s.buf.WriteString(line)
		s.buf.WriteByte('\n')
	}
	return true
}
