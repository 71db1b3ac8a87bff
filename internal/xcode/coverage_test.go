package xcode

import (
	"slices"
	"strings"
	"testing"
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
	}
}
