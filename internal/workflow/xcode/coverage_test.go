package xcode_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/fakexcode"
)

// writeRecordedXccov writes to path an `xccov view --report --json`
// recorded by another project (internal/coverage/testdata/PROVENANCE.tsv),
// its project directory (/Users/franco/Projects/swift) replaced by dir.
func writeRecordedXccov(t *testing.T, path, dir string) {
	t.Helper()
	data, err := os.ReadFile("../../coverage/testdata/xccov-report.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), "/Users/franco/Projects/swift", dir)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// xcode_test with coverage runs xcodebuild with -enableCodeCoverage YES
// and a result bundle, reads xccov's report of that bundle, answers the
// totals and the files least covered first, and keeps the report for
// output_get; a report xccov cannot give is a coverage error, not a
// failed run.
func TestXcodeTestCoverage(t *testing.T) {
	log := fixture(t, "xcodebuild", "bitrise_xcodebuild-ok.txt")
	report := filepath.Join(t.TempDir(), "xccov-report.json")
	e := newEnv(t, append([]fakexcode.Rule{
		{Tool: "xcodebuild", Match: []string{"test"}, StdoutFile: log, ResultBundle: true},
		{Tool: "xcrun", Match: []string{"xccov", "view", "--report", "--json"}, StdoutFile: report},
	}, bundleRules(t, "xcresult_summary_passed.json", "xcresult_tests.json")...)...)
	dir := filepath.Dir(e.project)
	writeRecordedXccov(t, report, dir)
	r := e.c.Call("xcode_test", e.args(map[string]any{"coverage": "Sources/RunnerLib"}))
	if r.Outcome != "ok" {
		t.Fatalf("outcome %s:\n%s", r.Outcome, r.Text)
	}
	// Nine files, 115 of 320 lines; RunnerLib's four 48 of 93.
	for _, want := range []string{"COVERAGE (xccov): 35.9% of lines (115 of 320) in 9 files", "0.0%  Sources/RunnerLib/Runtime.swift (0 of 45 lines)",
		"100.0%  Sources/RunnerLib/HelpMessagePresenter.swift (5 of 5 lines)", "no uncovered ranges"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the answer lacks %q:\n%s", want, r.Text)
		}
	}
	if strings.Contains(r.Text, "Sources/Danger/") {
		t.Errorf("the filter listed another directory's files:\n%s", r.Text)
	}
	call, ok := e.fake.Find(t, "xcodebuild", "test", "-enableCodeCoverage", "YES", "-resultBundlePath")
	if !ok {
		t.Fatalf("no xcodebuild test with coverage and a result bundle: %+v", e.fake.Calls(t))
	}
	bundle := call.Argv[slices.Index(call.Argv, "-resultBundlePath")+1]
	if _, ok := e.fake.Find(t, "xcrun", "xccov", "view", "--report", "--json", bundle); !ok {
		t.Errorf("xccov was not asked for the run's bundle %s: %+v", bundle, e.fake.Calls(t))
	}
	id, _ := r.Out["output_id"].(string)
	g := e.c.Call("output_get", map[string]any{"output_id": id, "coverage": filepath.Join(dir, "Sources/Danger/DangerDSL.swift")})
	if g.IsError || !strings.Contains(g.Text, "Sources/Danger/DangerDSL.swift: 92.1% of lines (35 of 38)") {
		t.Errorf("output_get of a file:\n%s", g.Text)
	}

	plain := e.c.Call("xcode_test", e.args(nil))
	calls := e.fake.Calls(t)
	for i := len(calls) - 1; i >= 0; i-- {
		if c := calls[i]; c.Tool == "xcodebuild" && slices.Contains(c.Argv, "test") {
			if slices.Contains(c.Argv, "-enableCodeCoverage") {
				t.Errorf("a run without coverage ran %q", c.Argv)
			}
			break
		}
	}
	if strings.Contains(plain.Text, "COVERAGE") || calls[len(calls)-1].Tool == "xcrun" && slices.Contains(calls[len(calls)-1].Argv, "xccov") {
		t.Errorf("a run without coverage has a coverage section or asked xccov:\n%s", plain.Text)
	}

	os.WriteFile(report, []byte("not json"), 0o644)
	bad := e.c.Call("xcode_test", e.args(map[string]any{"coverage": "."}))
	if bad.Outcome != "ok" || !strings.Contains(bad.Text, "COVERAGE: none — no coverage: reading xccov's report") {
		t.Errorf("an unreadable report: %s\n%s", bad.Outcome, bad.Text)
	}
}
