package xcode

import (
	"slices"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/pipeline"
)

// A coverage run's xcodebuild gathers coverage into its result bundle,
// which xccov then reports; coverage is refused for an action that runs no
// tests, and xccov for a bundle path that could be read as an option.
func TestCoverageCommands(t *testing.T) {
	r := Request{Project: "/p/App.xcodeproj", Scheme: "App", Destination: Destination{Platform: "macOS"}, ResultBundlePath: "/t/T.xcresult", Coverage: true}
	cmd, err := BuildCommand(ActionTest, r)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.Index(cmd.Argv, "-enableCodeCoverage"); i < 0 || cmd.Argv[i+1] != "YES" || cmd.Argv[len(cmd.Argv)-1] != "test" {
		t.Errorf("argv %q", cmd.Argv)
	}
	if _, err := BuildCommand(ActionBuild, r); err == nil || !strings.Contains(err.Error(), "coverage") {
		t.Errorf("coverage on build: %v", err)
	}
	x, err := CoverageCommand("/t/T.xcresult")
	if err != nil || !slices.Equal(x.Argv, []string{"xcrun", "xccov", "view", "--report", "--json", "/t/T.xcresult"}) {
		t.Errorf("xccov %q %v", x.Argv, err)
	}
	for _, bad := range []string{"", "-x"} {
		if _, err := CoverageCommand(bad); err == nil {
			t.Errorf("bundle %q accepted", bad)
		}
		if _, err := ArchiveCommand(bad, "/p/a.swift"); err == nil {
			t.Errorf("archive of bundle %q accepted", bad)
		}
	}
	a, err := ArchiveCommand("/t/T.xcresult", "/p/Sources/a.swift")
	if err != nil || !slices.Equal(a.Argv, []string{"xcrun", "xccov", "view", "--archive", "--file", "/p/Sources/a.swift", "--json", "/t/T.xcresult"}) {
		t.Errorf("archive of a file %q %v", a.Argv, err)
	}
	a, err = ArchiveCommand("/t/T.xcresult", "")
	if err != nil || !slices.Equal(a.Argv, []string{"xcrun", "xccov", "view", "--archive", "--json", "/t/T.xcresult"}) {
		t.Errorf("whole archive %q %v", a.Argv, err)
	}
	for _, bad := range []string{"a.swift", "-x"} {
		if _, err := ArchiveCommand("/t/T.xcresult", bad); err == nil {
			t.Errorf("file %q accepted", bad)
		}
	}
}

// A failed test is rerun under the name -only-testing takes: an XCTest
// method without the parentheses the result bundle gives it, a Swift
// Testing function with them.
func TestOnlyTestingID(t *testing.T) {
	for id, want := range map[string]string{
		"AppTests/ParserTests/testParsesHeader()": "AppTests/ParserTests/testParsesHeader",
		"AppTests/ParserSuite/parsesHeader()":     "AppTests/ParserSuite/parsesHeader()",
		"AppTests/ParserTests":                    "AppTests/ParserTests",
	} {
		if got := onlyTestingID(id); got != want {
			t.Errorf("%s: %s, want %s", id, got, want)
		}
	}
}

// The failing test's path is not made up where it cannot be had: a run
// whose bundle names no failed test, or none with an identifier, says why.
func TestFailedPathWithoutATest(t *testing.T) {
	for _, c := range []struct {
		sum  *TestSummary
		want string
	}{
		{nil, "names no failed test"},
		{&TestSummary{Failures: []TestFailure{{TestName: "testDecodesBody()"}}}, "gives testDecodesBody() no identifier"},
	} {
		o := &BuildOutcome{Status: pipeline.Failed, Summary: c.sum, Coverage: &coverage.Report{Tool: coverage.ToolXccov}}
		o.failedPath(t.Context(), ActionTest, Request{Coverage: true}, "/p")
		if o.Coverage.FailedPath != nil || !strings.Contains(o.Coverage.PathError, c.want) {
			t.Errorf("path %+v, error %q, want %q", o.Coverage.FailedPath, o.Coverage.PathError, c.want)
		}
	}
}
