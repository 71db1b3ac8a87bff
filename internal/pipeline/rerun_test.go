package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testutil/hangers"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/toolchain"
)

// TestCargoBinaryEndedByATestIsRerunToNameIt: a real cargo run whose test
// binary a test ended unnamed; the rerun of its unreported tests one at a
// time names it, in the verdict and in the raw log read back by Analyze.
func TestCargoBinaryEndedByATestIsRerunToNameIt(t *testing.T) {
	hangers.Need(t, "cargo")
	dir := nativeprojects.Write(t, nativeprojects.CargoExiting())
	steps, err := toolchain.TestPlan(toolchain.Cargo, dir, toolchain.Options{Args: []string{"--", "--test-threads=3"}})
	if err != nil {
		t.Fatal(err)
	}
	var raw strings.Builder
	res, err := Run(context.Background(), Request{Kind: KindTest, Steps: steps, Level: logfilter.Standard, Raw: &raw})
	if err != nil {
		t.Fatal(err)
	}
	want := "TESTS FAILED: the run ended before tests::b_exits finished (unittests src/lib.rs: exit 0"
	if res.Status != Failed || !strings.HasPrefix(res.Line, want) {
		t.Fatalf("%s %q, want %q…\nraw log:\n%s", res.Status, res.Line, want, tail(raw.String()))
	}
	if !strings.Contains(raw.String(), "--- rerun of unittests src/lib.rs") {
		t.Errorf("the rerun is not in the raw log:\n%s", tail(raw.String()))
	}
	again, err := Analyze(strings.NewReader(raw.String()), AnalyzeOptions{Level: logfilter.Standard})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(again.Line, want) {
		t.Errorf("the log read back: %q, want %q…", again.Line, want)
	}
}
