package testreport

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestRerunNamesTheTestThatEndedTheBinary: a real cargo log in which
// process::exit(0) ended a parallel test binary unnamed, followed by
// triage's rerun of its unreported tests one at a time: the test the rerun
// ends on is the one that ended the binary.
func TestRerunNamesTheTestThatEndedTheBinary(t *testing.T) {
	rep := parseFile(t, FormatCargo, "testdata/cargo-test-exit0-rerun-semver.log")
	if len(rep.CutShort) != 1 {
		t.Fatalf("cut short %+v, want one", rep.CutShort)
	}
	cs := rep.CutShort[0]
	if cs.Suite != "tests/test_version_req.rs" || cs.Test != "test_default" || !strings.HasPrefix(cs.How, "exit 0") {
		t.Errorf("cut short %+v, want test_default of tests/test_version_req.rs, exit 0", cs)
	}
	if !strings.HasPrefix(cs.Binary, "target/debug/deps/test_version_req-") {
		t.Errorf("binary %q, want cargo's target/debug/deps path", cs.Binary)
	}
	i := slices.IndexFunc(rep.Cases, func(c Case) bool { return c.Name == "test_default" })
	if i < 0 || rep.Cases[i].Status != Errored || !strings.Contains(rep.Cases[i].Message, RerunWhy) {
		t.Errorf("test_default not errored by the rerun: %+v", rep.Cases)
	}
	// The rerun's passes are not the run's: 3 of the binary's tests and
	// the other binaries' reported a result.
	if rep.Totals.Passed != 19 || rep.Totals.Errored != 1 || rep.Totals.Total != 20 {
		t.Errorf("totals %+v, want 19 passed, 1 errored", rep.Totals)
	}
	if rep.Status != Errored {
		t.Errorf("status %s, want errored", rep.Status)
	}
}

// TestRerunSections: a rerun that finishes every test, or is stopped,
// names no one; a rerun of a binary the log did not cut short names no one.
func TestRerunSections(t *testing.T) {
	b, err := os.ReadFile("testdata/cargo-test-exit0-rerun-semver.log")
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	cut := strings.Index(log, "--- rerun of ")
	if cut < 0 {
		t.Fatal("no rerun in the recorded log")
	}
	for _, tt := range []struct {
		name, rerun, want string
	}{
		{"every test finished alone", "running 2 tests\ntest a ... ok\ntest b ... ok\n\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 3 filtered out; finished in 0.00s\n", ""},
		{"stopped", "running 2 tests\ntest a ... ok\ntest b ... \n" + RerunStopped("stopped after 60s") + "\n", ""},
		{"ended on b", "running 2 tests\ntest a ... ok\ntest b ... \n", "b"},
	} {
		section := RerunHeader("tests/test_version_req.rs") + "\n$ x --exact --test-threads=1\n" + tt.rerun
		rep, err := Parse(FormatCargo, strings.NewReader(log[:cut]+section))
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.CutShort[0].Test; got != tt.want {
			t.Errorf("%s: named %q, want %q", tt.name, got, tt.want)
		}
		suite, name, err := ReadRerun(strings.NewReader(section))
		if err != nil || name != tt.want || tt.want != "" && suite != "tests/test_version_req.rs" {
			t.Errorf("%s: ReadRerun %q %q %v", tt.name, suite, name, err)
		}
	}
	rep, err := Parse(FormatCargo, strings.NewReader(log[:cut]+RerunHeader("tests/other.rs")+"\nrunning 1 test\ntest z ... \n"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.CutShort[0].Test != "" || slices.ContainsFunc(rep.Cases, func(c Case) bool { return c.Name == "z" }) {
		t.Errorf("a rerun of another suite named a test: %+v", rep.CutShort)
	}
}
