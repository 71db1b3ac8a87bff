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

// writeRecordedArchive writes to path an `xccov view --archive --file PATH
// --json` recorded by another project (internal/coverage/testdata/
// PROVENANCE.tsv): one file's lines, its path (/repo/Sources/Kit/
// Greeter.swift) replaced by file, escaped as xccov escapes a slash.
func writeRecordedArchive(t *testing.T, path, file string) {
	t.Helper()
	data, err := os.ReadFile("../../coverage/testdata/xccov-archive-file.json")
	if err != nil {
		t.Fatal(err)
	}
	moved := strings.ReplaceAll(string(data), `\/repo\/Sources\/Kit\/Greeter.swift`, strings.ReplaceAll(file, "/", `\/`))
	if err := os.WriteFile(path, []byte(moved), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A filter that selects few files has their lines read from the result
// bundle's archive, one xccov call a file: the answer shows the one file
// asked for with its uncovered lines, and output_get finds them kept. The
// fake answers with two recordings of two projects (the report of one,
// the lines of another's file moved onto a file of the first), so the
// report's figures for that file (5 of 5) are not its lines' (3 of 4):
// the lines win, and a note says so. A filter that selects more files
// than the bound has no lines read.
func TestXcodeTestCoverageLines(t *testing.T) {
	log := fixture(t, "xcodebuild", "bitrise_xcodebuild-ok.txt")
	tmp := t.TempDir()
	report, archive := filepath.Join(tmp, "xccov-report.json"), filepath.Join(tmp, "xccov-archive.json")
	e := newEnv(t, append([]fakexcode.Rule{
		{Tool: "xcodebuild", Match: []string{"test"}, StdoutFile: log, ResultBundle: true},
		{Tool: "xcrun", Match: []string{"xccov", "view", "--report", "--json"}, StdoutFile: report},
		{Tool: "xcrun", Match: []string{"xccov", "view", "--archive", "--file", "*", "--json"}, StdoutFile: archive},
	}, bundleRules(t, "xcresult_summary_passed.json", "xcresult_tests.json")...)...)
	dir := filepath.Dir(e.project)
	file := filepath.Join(dir, "Sources/RunnerLib/HelpMessagePresenter.swift")
	writeRecordedXccov(t, report, dir)
	writeRecordedArchive(t, archive, file)
	r := e.c.Call("xcode_test", e.args(map[string]any{"coverage": "Sources/RunnerLib/HelpMessagePresenter.swift"}))
	if r.Outcome != "ok" {
		t.Fatalf("outcome %s:\n%s", r.Outcome, r.Text)
	}
	for _, want := range []string{"Sources/RunnerLib/HelpMessagePresenter.swift: 75.0% of lines (3 of 4); uncovered lines: 5",
		"xccov's report counts 5 of 5 lines, its archive's lines 3 of 4", "COVERAGE (xccov): 35.4% of lines (113 of 319) in 9 files",
		"no uncovered ranges for the 8 files whose lines were not read"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the answer lacks %q:\n%s", want, r.Text)
		}
	}
	bundle := r.Out["result_bundle"].(string)
	if _, ok := e.fake.Find(t, "xcrun", "xccov", "view", "--archive", "--file", file, "--json", bundle); !ok {
		t.Errorf("xccov was not asked for the file's lines in the run's bundle: %+v", e.fake.Calls(t))
	}
	id, _ := r.Out["output_id"].(string)
	g := e.c.Call("output_get", map[string]any{"output_id": id, "coverage": "Sources/RunnerLib/HelpMessagePresenter.swift"})
	if g.IsError || !strings.Contains(g.Text, "uncovered lines: 5") {
		t.Errorf("output_get of the file:\n%s", g.Text)
	}

	before := len(e.fake.Calls(t))
	all := e.c.Call("xcode_test", e.args(map[string]any{"coverage": "."}))
	for _, c := range e.fake.Calls(t)[before:] {
		if slices.Contains(c.Argv, "--archive") {
			t.Errorf("nine files selected, over the bound, yet xccov was asked for lines: %q", c.Argv)
		}
	}
	if !strings.Contains(all.Text, "COVERAGE (xccov): 35.9% of lines (115 of 320) in 9 files") {
		t.Errorf("the whole project's answer:\n%s", all.Text)
	}
}

// A failed coverage run reruns its first failed test alone, with coverage
// into a result bundle of its own, and answers the lines it ran from that
// bundle's archive: the failing test's path. The fake answers the rerun's
// archive with one file's lines recorded by another project, moved into
// the project's directory.
func TestXcodeTestFailedPath(t *testing.T) {
	log := fixture(t, "xcodebuild", "xcbeautify_MixedTestLog_6_0_macOS.txt")
	tmp := t.TempDir()
	report, archive := filepath.Join(tmp, "xccov-report.json"), filepath.Join(tmp, "xccov-archive.json")
	e := newEnv(t, append([]fakexcode.Rule{
		{Tool: "xcodebuild", Match: []string{"-only-testing:CrashyTests/ParserTests/testParsesHeader", "test"}, Stdout: "** TEST FAILED **\n", Exit: 65, ResultBundle: true},
		{Tool: "xcodebuild", Match: []string{"test"}, StdoutFile: log, Exit: 65, ResultBundle: true},
		{Tool: "xcrun", Match: []string{"xccov", "view", "--report", "--json"}, StdoutFile: report},
		{Tool: "xcrun", Match: []string{"xccov", "view", "--archive", "--json"}, StdoutFile: archive},
	}, bundleRules(t, "xcresult_summary_failed.json", "xcresult_tests.json")...)...)
	dir := filepath.Dir(e.project)
	writeRecordedXccov(t, report, dir)
	writeRecordedArchive(t, archive, filepath.Join(dir, "Sources/Kit/Greeter.swift"))
	r := e.c.Call("xcode_test", e.args(map[string]any{"coverage": "."}))
	want := "the failing test CrashyTests/ParserTests/testParsesHeader() ran: Sources/Kit/Greeter.swift: 3-4,6 (1 other failed tests not rerun)"
	if r.Outcome != "failed" || !strings.Contains(r.Text, want) {
		t.Fatalf("outcome %s, want %q:\n%s", r.Outcome, want, r.Text)
	}
	call, ok := e.fake.Find(t, "xcodebuild", "-only-testing:CrashyTests/ParserTests/testParsesHeader", "-enableCodeCoverage", "YES", "test")
	if !ok {
		t.Fatalf("the failed test was not rerun alone with coverage: %+v", e.fake.Calls(t))
	}
	bundle := call.Argv[slices.Index(call.Argv, "-resultBundlePath")+1]
	if bundle == r.Out["result_bundle"] {
		t.Errorf("the rerun wrote into the run's own bundle %s", bundle)
	}
	if _, ok := e.fake.Find(t, "xcrun", "xccov", "view", "--archive", "--json", bundle); !ok {
		t.Errorf("xccov was not asked for the rerun's lines: %+v", e.fake.Calls(t))
	}
	if _, err := os.Stat(bundle); !os.IsNotExist(err) {
		t.Errorf("the rerun's bundle was left behind: %v", err)
	}
	var out struct {
		Coverage struct {
			FailedPath string `json:"failed_path"`
		}
	}
	r.Decode(t, &out)
	if !strings.HasPrefix(out.Coverage.FailedPath, "the failing test CrashyTests/ParserTests/testParsesHeader() ran: Sources/Kit/Greeter.swift: 3-4,6") {
		t.Errorf("structured failed_path %q", out.Coverage.FailedPath)
	}
}

// A rerun that leaves no result bundle gives no path, and says why.
func TestXcodeTestFailedPathRerunWithoutBundle(t *testing.T) {
	log := fixture(t, "xcodebuild", "xcbeautify_MixedTestLog_6_0_macOS.txt")
	report := filepath.Join(t.TempDir(), "xccov-report.json")
	e := newEnv(t, append([]fakexcode.Rule{
		{Tool: "xcodebuild", Match: []string{"-only-testing:CrashyTests/ParserTests/testParsesHeader", "test"}, Stdout: "** TEST FAILED **\n", Exit: 65},
		{Tool: "xcodebuild", Match: []string{"test"}, StdoutFile: log, Exit: 65, ResultBundle: true},
		{Tool: "xcrun", Match: []string{"xccov", "view", "--report", "--json"}, StdoutFile: report},
	}, bundleRules(t, "xcresult_summary_failed.json", "xcresult_tests.json")...)...)
	writeRecordedXccov(t, report, filepath.Dir(e.project))
	r := e.c.Call("xcode_test", e.args(map[string]any{"coverage": "."}))
	want := "the failing test's path: none — rerunning CrashyTests/ParserTests/testParsesHeader() alone with coverage: xcodebuild"
	if !strings.Contains(r.Text, want) || !strings.Contains(r.Text, "wrote no result bundle; its output ended: ** TEST FAILED **") {
		t.Errorf("want %q:\n%s", want, r.Text)
	}
}
