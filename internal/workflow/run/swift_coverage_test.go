package run_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/fakexcode"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// recordedCodecov is a SwiftPM coverage JSON recorded by another project
// (internal/coverage/testdata/PROVENANCE.tsv), its package directory
// (/Users/franco/Projects/Logger) replaced by dir, written where SwiftPM
// keeps it (.build/debug/codecov): the fake swift names that file, as
// swift test --show-codecov-path does.
func recordedCodecov(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile("../../coverage/testdata/swiftpm-codecov.json")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ".build", "debug", "codecov", "Logger.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.ReplaceAll(string(data), "/Users/franco/Projects/Logger", dir))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// test with coverage on a SwiftPM package runs swift test
// --enable-code-coverage, asks SwiftPM where the JSON is, and reads it:
// the package's own files count, its checkouts are apart; a failing
// test is rerun alone (--filter) with coverage.
func TestSwiftPackageCoverage(t *testing.T) {
	dir := nativeprojects.Write(t, map[string]string{"Package.swift": "// swift-tools-version:5.9\n"})
	json := recordedCodecov(t, dir)
	log := recorded(t, "xcbeautify_MixedTestLog_6_0_Linux.txt", 0)
	fake := fakexcode.Install(t, fakexcode.Scenario{Tools: []string{"swift"}, Rules: []fakexcode.Rule{
		{Tool: "swift", Match: []string{"test", "--show-codecov-path"}, Stdout: json + "\n"},
		{Tool: "swift", Match: []string{"test", "--enable-code-coverage"}, StdoutFile: log, Exit: 1},
	}})
	c := mcptest.Connect(t, nil)
	r := c.Call("test", map[string]any{"project_dir": dir, "coverage": ".", "configuration": "debug"})
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "TESTS FAILED") {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	// Logger.swift 29 of 34 lines, the tests' seven files 147 of 147; the
	// 53 files of Nimble and TestSpy in .build/checkouts are apart.
	for _, want := range []string{"COVERAGE (llvm-cov): 97.2% of lines (176 of 181) in 8 files", "85.3%  Sources/Logger/Logger.swift (29 of 34 lines)",
		"the failing test CaptureGroupTests/testForceFailure ran: Sources/Logger/Logger.swift: 21-57,87;"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the answer lacks %q:\n%s", want, r.Text)
		}
	}
	if strings.Contains(r.Text, "Nimble") {
		t.Errorf("a checkout among the package's files:\n%s", r.Text)
	}
	var ran [][]string
	for _, call := range fake.Calls(t) {
		ran = append(ran, call.Argv)
	}
	want := [][]string{
		{"test", "--enable-code-coverage", "--configuration=debug"},
		{"test", "--configuration=debug", "--show-codecov-path"},
		{"test", "--enable-code-coverage", "--configuration=debug", "--filter=CaptureGroupTests/testForceFailure"},
		{"test", "--configuration=debug", "--show-codecov-path"},
	}
	if !slices.EqualFunc(ran, want, slices.Equal) {
		t.Errorf("swift was run as %q, want %q", ran, want)
	}
	id, _ := r.Out["output_id"].(string)
	g := c.Call("output_get", map[string]any{"output_id": id, "coverage": "Sources/Logger/Logger.swift"})
	if g.IsError || !strings.Contains(g.Text, "Sources/Logger/Logger.swift: 85.3% of lines (29 of 34); uncovered lines: ") {
		t.Errorf("output_get of a file:\n%s", g.Text)
	}
}
