package bisect_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/bisect"
	"github.com/triage-dev/triage/internal/workflow/output"
)

// TestMain fails the package when its tests leave a process running or a
// triage-* entry in the temporary directory.
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

func connect(t testing.TB, workflows ...string) *mcptest.Client {
	return mcptest.ConnectCatalogConfig(t, &config.Config{Workflows: workflows},
		func(svc *services.Set) []*catalog.Workflow {
			return []*catalog.Workflow{bisect.Workflow(svc), output.Workflow(svc)}
		})
}

// history commits a Go module in the repository's directory half whose
// TestHalf breaks at commit 3 of 5 (which changes a README outside it
// too), git configured by the test alone; it returns the module's
// directory and the hashes.
func history(t *testing.T) (string, []string) {
	for _, tool := range []string{"git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed")
		}
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=Triage Test", "-c", "user.email=test@triage.invalid"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	var hashes []string
	for i := range 5 {
		half := "n / 2"
		if i >= 3 {
			half = "n / 3"
		}
		files := map[string]string{
			"README":            fmt.Sprintf("readme %d\n", min(i, 3)),
			"half/go.mod":       "module example.com/half\n\ngo 1.21\n",
			"half/half.go":      fmt.Sprintf("package half\n\n// Half halves (revision %d).\nfunc Half(n int) int { return %s }\n", i, half),
			"half/half_test.go": "package half\n\nimport \"testing\"\n\nfunc TestHalf(t *testing.T) {\n\tif Half(6) != 3 {\n\t\tt.Fatal(\"Half(6) != 3\")\n\t}\n}\n",
		}
		if err := os.MkdirAll(filepath.Join(dir, "half"), 0o755); err != nil {
			t.Fatal(err)
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git("add", "-A")
		git("commit", "-q", "-m", fmt.Sprintf("revision %d", i))
		hashes = append(hashes, git("rev-parse", "HEAD"))
	}
	return filepath.Join(dir, "half"), hashes
}

// TestBisectTool: the tool names the first bad commit of a project in a
// repository's directory (every file it changed, the diff of the
// project's alone), its verdicts before and at it and each step with its
// stored output, which
// output_get reads; a bad revision that passes is a usage error that
// says so.
func TestBisectTool(t *testing.T) {
	dir, hashes := history(t)
	c := connect(t, "bisect", "output")
	r := c.Call("bisect", map[string]any{"project_dir": dir, "good": hashes[0]})
	if r.Outcome != "ok" || !strings.HasPrefix(r.FirstLine(), "FIRST BAD COMMIT: "+hashes[3][:10]+" revision 3 (tests failed: example.com/half/TestHalf)") {
		t.Fatalf("outcome %q:\n%s", r.Outcome, r.Text)
	}
	for _, want := range []string{
		"\nAuthor: Triage Test <test@triage.invalid>\n", "\n README | +1 -1\n", "\n half/half.go | +2 -2\n",
		"\nbefore: step ", " " + hashes[2][:10] + " good: TESTS PASSED",
		"\nat:     step ", " " + hashes[3][:10] + " bad: TESTS FAILED",
		"\n-func Half(n int) int { return n / 2 }\n", "\n+func Half(n int) int { return n / 3 }\n",
	} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, r.Text)
		}
	}
	if strings.Contains(r.Text, "readme 3") {
		t.Errorf("the diff shows a file outside the project:\n%s", r.Text)
	}
	var out bisect.Output
	r.Decode(t, &out)
	if out.Status != "found" || out.FirstBad == nil || out.FirstBad.Hash != hashes[3] || out.Revisions != 5 || len(out.Steps) < 3 {
		t.Fatalf("output %+v", out)
	}
	g := c.Call("output_get", map[string]any{"output_id": out.At.OutputID})
	if !strings.Contains(g.Text, "Half(6) != 3") {
		t.Errorf("the bad step's output:\n%s", g.Text)
	}

	r = c.Call("bisect", map[string]any{"project_dir": dir, "good": hashes[0], "bad": hashes[2]})
	if r.Outcome != "usage_error" || !strings.HasPrefix(r.FirstLine(), "NOT BISECTED: the bad revision "+hashes[2][:10]+" does not fail (TESTS PASSED") {
		t.Errorf("a bad revision that passes: outcome %q:\n%s", r.Outcome, r.Text)
	}
	r = c.Call("bisect", map[string]any{"project_dir": dir, "good": "no-such-rev"})
	if r.Outcome != "usage_error" || !strings.Contains(r.Text, `good "no-such-rev" is not a commit`) {
		t.Errorf("an unknown revision: outcome %q:\n%s", r.Outcome, r.Text)
	}
}

// The workflow is opt-in: the default tools/list holds no bisect, and
// named, its tool costs few tokens (its rarely changed arguments are
// unlisted).
func TestBisectOptIn(t *testing.T) {
	if slices.Contains(connect(t).Tools(), "bisect") {
		t.Error("bisect is listed by default")
	}
	c := connect(t, "bisect")
	res, err := c.CS.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res.Tools, func(tool *mcp.Tool) bool { return tool.Name == "bisect" })
	if i < 0 {
		t.Fatal("bisect is not listed when its workflow is named")
	}
	b, _ := json.Marshal(res.Tools[i])
	t.Logf("bisect in tools/list: %d bytes, ~%d tokens", len(b), len(b)/4)
	if len(b) > 1800 {
		t.Errorf("bisect costs %d bytes of tools/list:\n%s", len(b), b)
	}
}
