package buildrun

import (
	"os"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/logfilter"
)

// analyzeRecorded runs Analyze over a recorded log at every level and
// returns the Standard result and filtered log; lines in keep must survive
// every level.
func analyzeRecorded(t *testing.T, log, format string, keep []string) (*Result, string) {
	t.Helper()
	var std *Result
	var stdOut string
	for _, level := range []logfilter.Level{logfilter.Minimal, logfilter.Standard, logfilter.Verbose} {
		f, err := os.Open(recorded + log)
		if err != nil {
			t.Fatal(err)
		}
		var filtered strings.Builder
		res, err := Analyze(f, AnalyzeOptions{Format: format, Level: level, Filtered: &filtered})
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", log, err)
		}
		for _, l := range keep {
			if !strings.Contains(filtered.String(), l) {
				t.Errorf("%s at %s: %q dropped from the filtered log:\n%s", log, level, l, filtered.String())
			}
		}
		if level == logfilter.Standard {
			std, stdOut = res, filtered.String()
		}
	}
	return std, stdOut
}

// TestAnalyzeGoPanicNamesTheFrame: `go test -json | triage filter` over a
// real panic names the test and the panic's first frame in the project's
// code, as the test call does (../testreport/testdata/README).
func TestAnalyzeGoPanicNamesTheFrame(t *testing.T) {
	for _, tt := range []struct {
		log, line string
	}{
		{"go-test-json-panic.log", "CRASHED: test binary panicked in github.com/google/uuid.MustParse at uuid.go:168 while running github.com/google/uuid/TestNullUUIDValue: injected panic"},
		{"go-test-json-goroutine-panic.log", "CRASHED: test binary panicked in golang.org/x/sync/errgroup.(*Group).Go.func1 at errgroup.go:76 while running golang.org/x/sync/errgroup/TestZeroGroup: injected goroutine panic"},
	} {
		res, _ := analyzeRecorded(t, tt.log, "", []string{"panic: injected"})
		if res.Status != Crashed || res.Line != tt.line {
			t.Errorf("%s: %s %q\n want %s %q", tt.log, res.Status, res.Line, Crashed, tt.line)
		}
		if res.Crash == nil || res.Crash.Frame == nil || res.Crash.Frame.Line == 0 {
			t.Errorf("%s: no crash frame: %+v", tt.log, res.Crash)
		}
	}
}
