package testreport

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func parseFile(t *testing.T, format, path string) *Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := Parse(format, f)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestCutShortRunsFail: a run that ends while a test is running, or whose
// test binary never prints its own summary, is a failure naming the test,
// for every runner. The logs are recorded from real runs (testdata/README).
func TestCutShortRunsFail(t *testing.T) {
	tests := []struct {
		path, format string
		want         []CutShort // How is matched as a substring
		passed       []string   // cases that must still count as passed
	}{
		// syscall.Exit(0) in TestMid: test2json gives TestMid the package's
		// "ok" and "pass"; TestAfter never runs; hash's TestSum passes.
		{"testdata/go-test-json-syscall-exit0.log", FormatGoJSON,
			[]CutShort{{Suite: "example.com/cap/calc", Test: "TestMid", How: "exit 0"}}, []string{"TestAdd", "TestSum"}},
		// TestMain exits 0 before m.Run: "ok" and "pass" without PASS.
		{"testdata/go-test-json-testmain-exit0.log", FormatGoJSON,
			[]CutShort{{Suite: "example.com/m2", Test: "", How: "exit 0"}}, nil},
		// os.Exit(1) in TestExits.
		{"testdata/go-test-json-exit.log", FormatGoJSON,
			[]CutShort{{Suite: "example.com/lf/exit", Test: "TestExits", How: "exit"}}, []string{"TestFirst", "TestOK"}},
		// process::exit(0) in tests::b_mid, one test thread: "test b_mid ... "
		// runs into cargo's next "Running" line; no "test result:" for it.
		{"testdata/cargo-test-exit0-serial.log", FormatCargo,
			[]CutShort{{Suite: "unittests src/lib.rs", Test: "tests::b_mid", How: "exit 0"}}, []string{"tests::a_adds", "integ_ok"}},
		// The same with parallel threads: b_mid never prints its name.
		{"testdata/cargo-test-exit0-parallel.log", FormatCargo,
			[]CutShort{{Suite: "unittests src/lib.rs", Test: "", How: "1 of 3 tests reported no result"}}, []string{"tests::a_adds", "tests::c_after", "integ_ok"}},
		// process::exit(3): cargo names the exit status.
		{"testdata/cargo-test-exit3.log", FormatCargo,
			[]CutShort{{Suite: "unittests src/lib.rs", Test: "tests::b_mid", How: "exit status: 3"}}, []string{"tests::a_adds"}},
		// The same under --no-fail-fast: cargo goes on to the next binary.
		{"testdata/cargo-test-exit3-no-fail-fast.log", FormatCargo,
			[]CutShort{{Suite: "unittests src/lib.rs", Test: "tests::b_mid", How: "exit status: 3"}}, []string{"tests::a_adds", "integ_ok"}},
		// A test killed ctest itself (SIGKILL to its parent): no summary.
		{"testdata/ctest-killed.log", FormatCTest,
			[]CutShort{{Suite: "ctest", Test: "killer", How: "the output ended"}}, []string{"first"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			rep := parseFile(t, tt.format, tt.path)
			if rep.Status == Passed || rep.Status == NoTests {
				t.Errorf("status %s, want a failure", rep.Status)
			}
			if len(rep.CutShort) != len(tt.want) {
				t.Fatalf("cut short %+v, want %+v", rep.CutShort, tt.want)
			}
			for i, w := range tt.want {
				g := rep.CutShort[i]
				if g.Suite != w.Suite || g.Test != w.Test || !strings.Contains(g.How, w.How) {
					t.Errorf("cut short %+v, want %+v", g, w)
				}
				if w.Test == "" {
					continue
				}
				i := slices.IndexFunc(rep.Cases, func(c Case) bool { return c.Name == w.Test })
				if i < 0 || rep.Cases[i].Status != Errored {
					t.Errorf("%s is not errored: %+v", w.Test, rep.Cases)
				}
			}
			for _, name := range tt.passed {
				i := slices.IndexFunc(rep.Cases, func(c Case) bool { return c.Name == name })
				if i < 0 || rep.Cases[i].Status != Passed {
					t.Errorf("%s not passed: %+v", name, rep.Cases)
				}
			}
		})
	}
}

// TestCompleteRunsAreNotCutShort: runs whose runner printed its summary and
// whose tests all finished record nothing cut short.
func TestCompleteRunsAreNotCutShort(t *testing.T) {
	for _, tt := range []struct{ path, format string }{
		{"testdata/go-test-json.log", FormatGoJSON},
		{"testdata/go-test-json-pass.log", FormatGoJSON},
		{"testdata/cargo-test.log", FormatCargo},
		{"testdata/cargo-test-pass.log", FormatCargo},
		{"testdata/ctest.log", FormatCTest},
		{"testdata/ctest-pass.log", FormatCTest},
	} {
		rep := parseFile(t, tt.format, tt.path)
		if len(rep.CutShort) > 0 {
			t.Errorf("%s: cut short %+v", tt.path, rep.CutShort)
		}
	}
}

// TestGoBuildOutputIsABuildError: Go 1.24+ reports compiler messages as
// build-output events; they are the report's build errors, whether the
// error is in library code or in a _test.go file, and a failing test in
// another package is reported beside them.
func TestGoBuildOutputIsABuildError(t *testing.T) {
	tests := []struct {
		path   string
		errors []string
		failed []string
	}{
		{"testdata/go-test-json-build-fail-lib.log", []string{"hash/hash.go:6:17: undefined: undefinedThing"}, []string{"TestMid"}},
		{"testdata/go-test-json-build-fail-test.log", []string{"hash/hash_test.go:6:9: undefined: nope"}, nil},
	}
	for _, tt := range tests {
		rep := parseFile(t, FormatGoJSON, tt.path)
		if !slices.Equal(rep.BuildErrors, tt.errors) {
			t.Errorf("%s: build errors %q, want %q", tt.path, rep.BuildErrors, tt.errors)
		}
		var failed []string
		for _, c := range rep.Failures() {
			failed = append(failed, c.Name)
		}
		if !slices.Equal(failed, tt.failed) {
			t.Errorf("%s: failed %q, want %q", tt.path, failed, tt.failed)
		}
		if rep.Status != Failed {
			t.Errorf("%s: status %s", tt.path, rep.Status)
		}
	}
}

// TestXCTestCutShort: a real XCTest log cut in the middle of a test, or
// after its last test and before any summary, is not a pass.
func TestXCTestCutShort(t *testing.T) {
	raw, err := os.ReadFile(fixtures + "/xcodebuild/xcbeautify_MixedTestLog_6_0_Linux.txt")
	if err != nil {
		t.Skipf("fixture: %v", err) // the shared fixtures folder is absent
	}
	lines := strings.SplitAfter(string(raw), "\n")
	tests := []struct {
		keep int
		want CutShort
	}{
		{11, CutShort{Suite: "CaptureGroupTests", Test: "testMatchSwiftTestingIssueArgument3", How: "the output ended"}},
		{12, CutShort{Suite: "xctest", Test: "", How: "the output ended before the test runner's summary"}},
	}
	for _, tt := range tests {
		rep, err := Parse(FormatXCTest, strings.NewReader(strings.Join(lines[:tt.keep], "")))
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.CutShort) != 1 || rep.CutShort[0] != tt.want || rep.Status == Passed {
			t.Errorf("first %d lines: %s, cut short %+v, want %+v", tt.keep, rep.Status, rep.CutShort, tt.want)
		}
	}
	rep, err := Parse(FormatXCTest, strings.NewReader(string(raw)))
	if err != nil || len(rep.CutShort) > 0 {
		t.Errorf("whole log: cut short %+v (%v)", rep.CutShort, err)
	}
}
