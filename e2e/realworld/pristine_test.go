package realworld

import (
	"encoding/json"
	"os"
	"path/filepath"
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
			r := callTool(t, filepath.Join(t.TempDir(), "store"), "test", args)
			// zlib's tests are programs: make test succeeds, no test is named.
			if v := firstLine(r.Text); r.Exit != 0 || (!strings.HasPrefix(v, "TESTS PASSED") && !strings.HasPrefix(v, "TEST COMMAND SUCCEEDED")) {
				t.Fatalf("exit %d; the pristine project's tests did not pass:\n%s", r.Exit, clip(r.Text, 3000))
			}
			var out struct {
				Diagnostics []struct{ Kind, Message string } `json:"diagnostics"`
			}
			if err := json.Unmarshal(r.Output, &out); err != nil {
				t.Fatalf("test answer: %v", err)
			}
			for _, d := range out.Diagnostics {
				switch d.Kind {
				case "crash", "failure", "error", "linker":
					t.Errorf("a passing run lists a %s: %q", d.Kind, d.Message)
				}
			}
			t.Logf("%s: %s; diagnostics %+v", name, firstLine(r.Text), out.Diagnostics)
		})
	}
}
