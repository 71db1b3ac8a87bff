package realworld

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestPristineProjectsPass runs each corpus project's tests as fetched, no
// fault injected: triage must say they passed, exit 0, and list no
// diagnostic that would send an agent looking for a fault that is not
// there (a crash, a failure, an error). A project's own chatter (zlib's
// "*** zlib test OK ***", a test's log of an expected error) is not one.
func TestPristineProjectsPass(t *testing.T) {
	names := make([]string, 0, len(projects))
	for name := range projects {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			p := projects[name]
			src := filepath.Join(corpusDir(), p.Dir)
			if _, err := os.Stat(filepath.Join(src, ".fetched")); err != nil {
				missing(t, src+" not fetched: run scripts/corpus.sh")
			}
			for _, tool := range p.Tools {
				needTool(t, tool)
			}
			dir := copyProject(t, src)
			prepare(t, p, dir, nil)
			args := map[string]any{"project_dir": dir, "toolchain": p.Toolchain}
			if len(p.Targets) > 0 {
				args["targets"] = p.Targets
			}
			store := filepath.Join(t.TempDir(), "store")
			r := callTool(t, store, "test", args)
			// zlib's tests are programs: make test succeeds, no test is named.
			if v := firstLine(r.Text); r.Exit != 0 || (!strings.HasPrefix(v, "TESTS PASSED") && !strings.HasPrefix(v, "TEST COMMAND SUCCEEDED")) {
				t.Fatalf("exit %d; the pristine project's tests did not pass:\n%s", r.Exit, clip(r.Text, 3000))
			}
			noFaultDiagnostics(t, "test", r)
			delete(args, "targets") // a build's targets are not a test run's packages
			if r := callTool(t, store, "build", args); r.Exit != 0 || !strings.HasPrefix(firstLine(r.Text), "BUILD SUCCEEDED") {
				t.Errorf("exit %d; the pristine project did not build:\n%s", r.Exit, clip(r.Text, 3000))
			} else {
				noFaultDiagnostics(t, "build", r)
			}
		})
	}
}

// warningCount is a tool's count of its warnings ("`semver` (lib test)
// generated 26 warnings (23 duplicates)"), which is no warning itself.
var warningCount = regexp.MustCompile(`generated \d+ warnings?\b`)

// noFaultDiagnostics fails when a passing answer lists a diagnostic that
// says something went wrong: a crash, a failure, an error.
func noFaultDiagnostics(t *testing.T, tool string, r toolResult) {
	t.Helper()
	var out struct {
		Diagnostics []struct{ Kind, Message string } `json:"diagnostics"`
	}
	if err := json.Unmarshal(r.Output, &out); err != nil {
		t.Fatalf("%s answer: %v", tool, err)
	}
	for _, d := range out.Diagnostics {
		switch {
		case d.Kind == "crash", d.Kind == "failure", d.Kind == "error", d.Kind == "linker":
			t.Errorf("a passing %s lists a %s: %q", tool, d.Kind, d.Message)
		case warningCount.MatchString(d.Message):
			t.Errorf("%s lists a tool's count of warnings as a %s: %q", tool, d.Kind, d.Message)
		}
	}
	t.Logf("%s: %s; diagnostics %+v", tool, firstLine(r.Text), out.Diagnostics)
}
