package ciout

import (
	"testing"

	"github.com/triage-dev/triage/internal/logfilter"
)

// A failed run with no error of its own (a log cut short) is annotated with
// its verdict; a passing run's error lines are warnings; a timestamp that
// the diagnostic pattern read as file:line:col is no file.
func TestForRun(t *testing.T) {
	cut := ForRun(nil, &logfilter.Summary{}, "TESTS FAILED: nextest ended without a result", true)
	if len(cut) != 1 || cut[0].String() != "::error title=triage::TESTS FAILED: nextest ended without a result" {
		t.Errorf("cut short: %v", cut)
	}
	noise := &logfilter.Summary{Diagnostics: []logfilter.Diagnostic{
		{Kind: logfilter.KindError, File: "2015-09-20 16", Line: 1, Col: 11, Message: "Error creating notification handler"},
		{Kind: logfilter.KindError, File: "main.c", Line: 3, Message: "boom"},
	}}
	passed := ForRun(nil, noise, "TESTS PASSED: 3 passed", false)
	want := []string{"::warning::Error creating notification handler", "::warning file=main.c,line=3::boom"}
	if len(passed) != len(want) {
		t.Fatalf("passed: %v", passed)
	}
	for i, a := range passed {
		if a.String() != want[i] {
			t.Errorf("passed [%d] = %q, want %q", i, a.String(), want[i])
		}
	}
	failed := ForRun(nil, noise, "BUILD FAILED", true)
	if len(failed) != 2 || failed[1].String() != "::error file=main.c,line=3::boom" {
		t.Errorf("failed with errors of its own: no verdict annotation added: %v", failed)
	}
}
