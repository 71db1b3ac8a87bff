package xcode_test

import (
	"os"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/session"
	xcodewf "github.com/triage-dev/triage/internal/workflow/xcode"
	"github.com/triage-dev/triage/internal/xcode"
)

// TestRealXcode runs the tool flow against the real xcodebuild on a Mac:
// discover, list schemes, build settings, build and test of the project
// TRIAGE_XCODE_PROJECT (.xcodeproj or .xcworkspace) and scheme
// TRIAGE_XCODE_SCHEME, on the simulator TRIAGE_XCODE_SIMULATOR if set.
func TestRealXcode(t *testing.T) {
	if os.Getenv("TRIAGE_REAL_XCODE") != "1" {
		t.Skip("set TRIAGE_REAL_XCODE=1 (with TRIAGE_XCODE_PROJECT and TRIAGE_XCODE_SCHEME) on a Mac with Xcode to run against the real tools")
	}
	if err := xcode.Available(); err != nil {
		t.Fatal(err)
	}
	path, scheme := os.Getenv("TRIAGE_XCODE_PROJECT"), os.Getenv("TRIAGE_XCODE_SCHEME")
	if path == "" || scheme == "" {
		t.Fatal("TRIAGE_XCODE_PROJECT and TRIAGE_XCODE_SCHEME must name a project and one of its schemes")
	}
	c := mcptest.ConnectCatalog(t, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{session.Workflow(svc), xcodewf.Workflow(svc)}
	})
	args := map[string]any{"scheme": scheme}
	if strings.HasSuffix(path, ".xcworkspace") {
		args["workspace_path"] = path
	} else {
		args["project_path"] = path
	}
	if sim := os.Getenv("TRIAGE_XCODE_SIMULATOR"); sim != "" {
		args["simulator_name"] = sim
	}
	if r := c.Call("session_set_defaults", args); r.IsError {
		t.Fatal(r.Text)
	}
	if r := c.Call("xcode_list_schemes", map[string]any{}); r.IsError || !strings.Contains(r.Text, scheme) {
		t.Fatalf("list schemes: %s", r.Text)
	}
	if r := c.Call("xcode_show_build_settings", map[string]any{}); r.IsError {
		t.Fatalf("build settings: %s", r.Text)
	}
	if r := c.Call("xcode_build", map[string]any{}); r.IsError || (r.Outcome == "ok") != strings.HasPrefix(r.FirstLine(), "BUILD SUCCEEDED") {
		t.Fatalf("build: outcome %s: %s", r.Outcome, r.Text)
	}
	r := c.Call("xcode_test", map[string]any{})
	known := []string{"TESTS PASSED", "TESTS FAILED", "CRASHED", "NO TESTS RAN", "BUILD FAILED", "TESTS DID NOT FINISH", "FAILED"}
	if r.IsError || !slicesHasPrefix(r.FirstLine(), known) || (r.Outcome == "ok") != strings.HasPrefix(r.FirstLine(), "TESTS PASSED") {
		t.Fatalf("test: outcome %s: %s", r.Outcome, r.Text)
	}
	var out struct {
		ResultBundle string `json:"result_bundle"`
	}
	r.Decode(t, &out)
	if out.ResultBundle == "" && !strings.HasPrefix(r.FirstLine(), "BUILD FAILED") {
		t.Errorf("no result bundle read:\n%s", r.Text)
	}
}

func slicesHasPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
