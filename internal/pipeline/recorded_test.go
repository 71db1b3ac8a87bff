package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/toolchain"
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

// TestBuildFailuresNameTheFirstError: a failed build is named by its first
// compiler error with the compiler's location, for rustc (which prints it
// on the next line), gcc and Go, whether the log is piped into the filter,
// or the build or test step failed; a compile error in output no test
// parser knows (make test) is a build failure, not a test failure.
func TestBuildFailuresNameTheFirstError(t *testing.T) {
	const (
		rustLib  = "src/lib.rs:485:29: error[E0308]: mismatched types"
		rustTest = "tests/test_version_req.rs:47:29: error[E0308]: mismatched types"
		zlib     = "zutil.c:29:5: ‘injected_undeclared_identifier’ undeclared (first use in this function)"
	)
	// triage filter --toolchain T < log
	for _, tt := range []struct{ log, format, line string }{
		{"cargo-test-compile-error-lib.log", testreport.FormatCargo, "BUILD FAILED: 3 errors: " + rustLib},
		{"cargo-test-compile-error-test.log", testreport.FormatCargo, "BUILD FAILED: 2 errors: " + rustTest},
		{"make-test-compile-error.log", "", "BUILD FAILED: 1 error: " + zlib},
	} {
		res, _ := analyzeRecorded(t, tt.log, tt.format, nil)
		if res.Status != Failed || res.Line != tt.line {
			t.Errorf("filter %s: %s %q\n want %s %q", tt.log, res.Status, res.Line, Failed, tt.line)
		}
	}
	// The same logs printed by a build or test step that exits as the tool did.
	for _, tt := range []struct {
		log  string
		kind string
		step toolchain.Step
		exit int
		line string
	}{
		{"cargo-test-compile-error-lib.log", KindBuild, toolchain.Step{Name: toolchain.StepBuild}, 101, "BUILD FAILED: 3 errors: " + rustLib},
		{"cargo-test-compile-error-lib.log", KindTest, toolchain.Step{Name: toolchain.StepTest, Format: testreport.FormatCargo}, 101,
			"BUILD FAILED: 3 errors (the tests did not run): " + rustLib},
		{"cargo-test-compile-error-test.log", KindTest, toolchain.Step{Name: toolchain.StepTest, Format: testreport.FormatCargo}, 101,
			"BUILD FAILED: 2 errors (the tests did not run): " + rustTest},
		{"make-test-compile-error.log", KindTest, toolchain.Step{Name: toolchain.StepTest}, 2,
			"BUILD FAILED: 1 error (test step; no test results recognised): " + zlib},
		{"make-test-compile-error.log", KindTest, toolchain.Step{Name: toolchain.StepBuild}, 2,
			"BUILD FAILED: 1 error (build step; the tests did not run): " + zlib},
	} {
		path, err := filepath.Abs(recorded + tt.log)
		if err != nil {
			t.Fatal(err)
		}
		step := tt.step
		step.Argv = []string{"sh", "-c", `cat "$0"; exit "$1"`, path, strconv.Itoa(tt.exit)}
		res, err := Run(context.Background(), Request{Kind: tt.kind, Steps: []toolchain.Step{step}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != Failed || res.Line != tt.line {
			t.Errorf("%s step over %s: %s %q\n want %s %q", step.Name, tt.log, res.Status, res.Line, Failed, tt.line)
		}
	}
}

// TestDataRaceVerdict: a test failed by a data race is named in the
// verdict with the racy line, from go test -race's log and from a
// ThreadSanitizer report under ctest, and the race's lines stay in the
// filtered log.
func TestDataRaceVerdict(t *testing.T) {
	for _, tt := range []struct {
		log, line string
		keep      []string
	}{
		{"go-test-json-race.log", "TESTS FAILED: 2 of 6 failed; data race in golang.org/x/sync/errgroup/TestWithContext at errgroup.go:78",
			[]string{"WARNING: DATA RACE", "testing.go:1712: race detected during execution of test", "--- FAIL: TestWithContext"}},
		{"ctest-tsan.log", "TESTS FAILED: 1 of 2 failed; data race in race at race.c:8",
			[]string{"WARNING: ThreadSanitizer: data race", "SUMMARY: ThreadSanitizer: data race /tmp/cap/tsan/race.c:8 in bump"}},
	} {
		res, _ := analyzeRecorded(t, tt.log, "", tt.keep)
		if res.Status != Failed || res.Line != tt.line {
			t.Errorf("%s: %s %q\n want %s %q", tt.log, res.Status, res.Line, Failed, tt.line)
		}
	}
}
