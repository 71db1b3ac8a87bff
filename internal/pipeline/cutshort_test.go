package pipeline

import (
	"os"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/logfilter"
)

const recorded = "../testreport/testdata/"

// TestAnalyzeRecordedRuns: logs recorded from real runs with one fault
// each (../testreport/testdata/README) get the verdict that names what
// went wrong, and the filtered log keeps every compiler line, at every
// level.
func TestAnalyzeRecordedRuns(t *testing.T) {
	tests := []struct {
		log    string
		status Status
		line   string
		keep   []string // lines the filtered log must keep
		errors int      // errors counted in the log, at least
	}{
		{"go-test-json-syscall-exit0.log", Failed,
			"TESTS FAILED: the run ended before TestMid finished (example.com/cap/calc: exit 0); 2 passed", nil, 0},
		{"go-test-json-testmain-exit0.log", Failed,
			"TESTS FAILED: example.com/m2 ended without a result (exit 0 without the test binary's PASS line)", nil, 0},
		{"cargo-test-exit0-serial.log", Failed,
			"TESTS FAILED: the run ended before tests::b_mid finished (unittests src/lib.rs: exit 0); 2 passed", nil, 0},
		{"cargo-test-exit0-parallel.log", Failed,
			"TESTS FAILED: unittests src/lib.rs ended without a result (exit 0; 1 of 3 tests reported no result); 3 passed", nil, 0},
		{"cargo-test-exit3.log", Failed,
			"TESTS FAILED: the run ended before tests::b_mid finished (unittests src/lib.rs: exit status: 3); 1 passed", nil, 0},
		// A hung cargo run killed after gdb took its stacks: the libtest
		// thread names the test that never finished.
		{"cargo-test-hang-semver.log", Failed,
			"TESTS FAILED: the run ended before test_default finished (tests/test_version_req.rs: the output ended; 1 of 19 tests reported no result); 31 passed", nil, 0},
		// exit(0) ended a parallel binary unnamed; triage's rerun of its
		// unreported tests one at a time, in the log, names the test.
		{"cargo-test-exit0-rerun-semver.log", Failed,
			"TESTS FAILED: the run ended before test_default finished (tests/test_version_req.rs: exit 0; 16 of 19 tests reported no result); 19 passed", nil, 0},
		{"ctest-killed.log", Failed,
			"TESTS FAILED: the run ended before killer finished (ctest: the output ended); 1 passed", nil, 0},
		{"go-test-json-build-fail-lib.log", Failed,
			"BUILD FAILED: 1 error: hash/hash.go:6:17: undefined: undefinedThing; and TESTS FAILED: 1 of 3 failed",
			[]string{"hash/hash.go:6:17: undefined: undefinedThing", "--- FAIL: TestMid"}, 1},
		{"go-test-json-build-fail-test.log", Failed,
			"BUILD FAILED: 1 error (the tests did not run): hash/hash_test.go:6:9: undefined: nope",
			[]string{"hash/hash_test.go:6:9: undefined: nope"}, 1},
		{"go-test-json-pass.log", Succeeded, "TESTS PASSED: 4 passed", nil, 0},
		{"cargo-test-pass.log", Succeeded, "TESTS PASSED: 4 passed", nil, 0},
		{"ctest-pass.log", Succeeded, "TESTS PASSED: 3 passed", nil, 0},
	}
	for _, tt := range tests {
		for _, level := range []logfilter.Level{logfilter.Minimal, logfilter.Standard, logfilter.Verbose} {
			f, err := os.Open(recorded + tt.log)
			if err != nil {
				t.Fatal(err)
			}
			var filtered strings.Builder
			res, err := Analyze(f, AnalyzeOptions{Level: level, Filtered: &filtered})
			f.Close()
			if err != nil {
				t.Fatalf("%s: %v", tt.log, err)
			}
			if res.Status != tt.status || res.Line != tt.line {
				t.Errorf("%s: %s %q\n want %s %q", tt.log, res.Status, res.Line, tt.status, tt.line)
			}
			for _, l := range tt.keep {
				if !strings.Contains(filtered.String(), l) {
					t.Errorf("%s at %s: %q dropped from the filtered log:\n%s", tt.log, level, l, filtered.String())
				}
			}
			if got := res.Log.Errors + res.Log.LinkerErrors; got < tt.errors {
				t.Errorf("%s at %s: %d errors counted, want %d", tt.log, level, got, tt.errors)
			}
		}
	}
}
