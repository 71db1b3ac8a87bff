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
