package wire

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/jsoncut"
	"github.com/triage-dev/triage/internal/testreport"
)

// TestCutAnswerKeepsFailures: a run of thousands of tests whose failures
// come last still shows them when its answer is cut to its budget.
func TestCutAnswerKeepsFailures(t *testing.T) {
	rep := &testreport.Report{Format: testreport.FormatGoJSON, Status: testreport.Failed}
	for i := range 3000 {
		rep.Cases = append(rep.Cases, testreport.Case{Suite: "pkg", Name: fmt.Sprintf("TestPasses%04d", i), Status: testreport.Passed})
	}
	rep.Cases = append(rep.Cases,
		testreport.Case{Suite: "pkg", Name: "TestFailsLast", Status: testreport.Failed, Message: "want 4"},
		testreport.Case{Suite: "pkg", Name: "TestPassesAfter", Status: testreport.Passed})
	w := TestReportOf(rep)
	if w.Cases[0].Name != "TestFailsLast" || w.Cases[1].Name != "TestPasses0000" || w.Cases[len(w.Cases)-1].Name != "TestPassesAfter" {
		t.Fatalf("order: %s, %s … %s", w.Cases[0].Name, w.Cases[1].Name, w.Cases[len(w.Cases)-1].Name)
	}
	if rep.Cases[0].Name != "TestPasses0000" {
		t.Errorf("the report itself was reordered")
	}
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	cut := jsoncut.Bound(b, 8<<10)
	if len(cut) > 8<<10 || !strings.Contains(string(cut), "TestFailsLast") {
		t.Errorf("the cut answer (%d bytes) lost the failure", len(cut))
	}
}

// An answer lists every case that did not pass and the first passed ones,
// saying how many more passed; the report it came from keeps them all.
func TestAnswerListsFewPassedCases(t *testing.T) {
	rep := &testreport.Report{Format: testreport.FormatGoJSON, Status: testreport.Failed}
	for i := range 30 {
		rep.Cases = append(rep.Cases, testreport.Case{Suite: "pkg", Name: fmt.Sprintf("TestPasses%02d", i), Status: testreport.Passed})
	}
	rep.Cases = append(rep.Cases,
		testreport.Case{Suite: "pkg", Name: "TestFails", Status: testreport.Failed},
		testreport.Case{Suite: "pkg", Name: "TestSkipped", Status: testreport.Skipped},
		testreport.Case{Suite: "pkg", Name: "TestCrashed", Status: testreport.Crashed})
	rep.Notes = []string{"a note of the run"}
	whole := TestReportOf(rep)
	listed := whole.Listed()
	var names []string
	for _, c := range listed.Cases {
		names = append(names, c.Name)
	}
	want := []string{"TestFails", "TestCrashed"}
	for i := range maxPassedListed {
		want = append(want, fmt.Sprintf("TestPasses%02d", i))
	}
	want = append(want, "TestSkipped")
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("listed %q\nwant   %q", names, want)
	}
	note := fmt.Sprintf("cases lists %d of the %d passed tests; the log has every one", maxPassedListed, 30)
	if len(listed.Notes) != 2 || listed.Notes[1] != note {
		t.Errorf("notes %q, want the run's and %q", listed.Notes, note)
	}
	if len(whole.Cases) != 33 || len(whole.Notes) != 1 || listed.Totals != whole.Totals {
		t.Errorf("the whole report changed: %d cases, notes %q", len(whole.Cases), whole.Notes)
	}
	few := TestReportOf(&testreport.Report{Cases: rep.Cases[:maxPassedListed]})
	if got := few.Listed(); got != few {
		t.Errorf("a report of %d passed cases was not answered whole", maxPassedListed)
	}
	if (*TestReport)(nil).Listed() != nil {
		t.Errorf("nil listed as a report")
	}
}
