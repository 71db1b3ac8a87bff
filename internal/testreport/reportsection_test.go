package testreport

import (
	"bytes"
	"strings"
	"testing"
)

const ctestAllPassed = `    Start 1: first
1/2 Test #1: first ............................   Passed    0.01 sec
    Start 2: early
2/2 Test #2: early ............................   Passed    0.01 sec

100% tests passed, 0 tests failed out of 2
`

// TestReportSectionReadBack: what the pipeline adopted from CTest's JUnit
// file and wrote into the log makes the log read back as the live run
// judged it; without the section the log reads as a pass.
func TestReportSectionReadBack(t *testing.T) {
	var log bytes.Buffer
	log.WriteString(ctestAllPassed)
	if err := WriteReportSection(&log, "junit.xml", []CutShort{
		{Suite: "ctest", Test: "early", How: "exit 0 before Unity's summary"},
		{Suite: "ctest", Test: "", How: "unnamed: not written"},
	}); err != nil {
		t.Fatal(err)
	}
	log.WriteString("Errors while running CTest\n")

	plain, err := Parse(FormatCTest, strings.NewReader(ctestAllPassed))
	if err != nil || plain.Status != Passed {
		t.Fatalf("the log alone: %v %v, want passed", plain.Status, err)
	}
	rep, err := Parse(FormatCTest, &log)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status == Passed || rep.Totals.Passed != 1 || rep.Totals.Errored != 1 {
		t.Fatalf("status %s, totals %+v: want early errored\n%s", rep.Status, rep.Totals, log.String())
	}
	if len(rep.CutShort) != 1 || rep.CutShort[0].Test != "early" || rep.CutShort[0].How != "exit 0 before Unity's summary" {
		t.Errorf("cut short %+v", rep.CutShort)
	}
}

// TestReportSectionNeedsItsHeader: an indented "name: reason" line
// elsewhere in a log (a test's own output) is not a finding.
func TestReportSectionNeedsItsHeader(t *testing.T) {
	log := ctestAllPassed + "  early: exit 0 before Unity's summary\n"
	rep, err := Parse(FormatCTest, strings.NewReader(log))
	if err != nil || rep.Status != Passed {
		t.Fatalf("status %v %v, want passed", rep.Status, err)
	}
}
