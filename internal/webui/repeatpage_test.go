package webui_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// keptAs finds the id of the output a repeat or bisect kept its answer
// as, in the call's text.
var keptAs = regexp.MustCompile(`kept as output (o-[0-9a-f]+)`)

// callKept makes a tool call and returns the id of the output its answer
// was kept as.
func (s *site) callKept(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	res, err := s.mcp.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	m := keptAs.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("%s kept no answer:\n%s", tool, text)
	}
	return m[1]
}

// everyThirdModule's TestEveryThird fails on every third run, by the
// counter in $COUNTER.
var everyThirdModule = map[string]string{
	"go.mod": "module example.com/third\n\ngo 1.22\n",
	"third_test.go": `package third

import (
	"os"
	"strconv"
	"testing"
)

func TestEveryThird(t *testing.T) {
	b, _ := os.ReadFile(os.Getenv("COUNTER"))
	n, _ := strconv.Atoi(string(b))
	n++
	os.WriteFile(os.Getenv("COUNTER"), []byte(strconv.Itoa(n)), 0o644)
	if n%3 == 0 {
		t.Errorf("run %d of the counter", n)
	}
}

func TestStable(t *testing.T) {}
`,
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// halvingHistory is a git repository of a Go module whose TestHalf
// breaks at commit 3 of 5; it returns the directory and the hashes.
func halvingHistory(t *testing.T) (string, []string) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
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
		writeTree(t, dir, map[string]string{
			"go.mod":       "module example.com/half\n\ngo 1.21\n",
			"half.go":      fmt.Sprintf("package half\n\n// Half halves (revision %d).\nfunc Half(n int) int { return %s }\n", i, half),
			"half_test.go": "package half\n\nimport \"testing\"\n\nfunc TestHalf(t *testing.T) {\n\tif Half(6) != 3 {\n\t\tt.Fatal(\"Half(6) != 3\")\n\t}\n}\n",
		})
		git("add", "-A")
		git("commit", "-q", "-m", fmt.Sprintf("revision %d", i))
		hashes = append(hashes, git("rev-parse", "HEAD"))
	}
	return dir, hashes
}

// TestRepeatAndBisectPagesInChromium: a repeat's kept tally shows its
// runs, the failures grouped by signature, each linked to its first
// failing run's output (which opens); a bisect's kept answer shows each
// revision it judged with its mark and verdict, the first bad commit
// marked.
func TestRepeatAndBisectPagesInChromium(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	s, ctx := newSite(t, "run", "bisect") // bisect is opt-in
	dir := t.TempDir()
	writeTree(t, dir, everyThirdModule)
	tally := s.callKept(t, "test", map[string]any{"project_dir": dir, "repeat": 6,
		"env": map[string]string{"COUNTER": filepath.Join(t.TempDir(), "count")}})

	t.Run("repeat", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/ui/runs/"+tally), chromedp.WaitVisible("#repeat table.groups")); err != nil {
			t.Fatal(err)
		}
		got := text(t, ctx, `document.getElementById('repeat').innerText`)
		if !contains(got, "Runs: 2 of 6 runs failed", "example.com/third TestEveryThird: failed 2 of 6 runs (flaky)", "2×", "run 3 of the counter",
			"runs 1 to 6 ran in one go test -count=6") {
			t.Errorf("the repeat's page shows:\n%s", got)
		}
		if n := text(t, ctx, `String(document.querySelectorAll('#repeat tr.group').length)`); n != "1" {
			t.Errorf("%s groups, want 1 (one signature)", n)
		}
		meta := text(t, ctx, `document.querySelector('#run-head dl.meta').innerText`)
		if !contains(meta, "runs\n6, 2 failed") || strings.Contains(meta, "exit code") || strings.Contains(meta, "duration") {
			t.Errorf("the repeat's facts (runs, not a process's exit code and duration):\n%s", meta)
		}
		s.shot(t, ctx, "run-repeat")
		if err := chromedp.Do(ctx, chromedp.Click(`#repeat tr.group a.runlink`), chromedp.WaitVisible("#output .line")); err != nil {
			t.Fatal(err)
		}
		wait(t, ctx, "the first failing run's output", `[...document.querySelectorAll('#output .tx')].some(e => e.textContent.includes('run 3 of the counter'))`)
	})

	repo, hashes := halvingHistory(t)
	steps := s.callKept(t, "bisect", map[string]any{"project_dir": repo, "good": hashes[0]})
	t.Run("bisect", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/ui/runs/"+steps), chromedp.WaitVisible("#bisect table.steps")); err != nil {
			t.Fatal(err)
		}
		got := text(t, ctx, `document.getElementById('bisect').innerText`)
		if !contains(got, "over 5 revisions", "first bad commit: "+hashes[3]+" revision 3", "bad (first bad)", "good") {
			t.Errorf("the bisect's page shows:\n%s", got)
		}
		first := text(t, ctx, `document.querySelector('#bisect tr.bstep.first').innerText`)
		if !contains(first, hashes[3][:10], "revision 3", "TESTS FAILED") {
			t.Errorf("the first bad commit's step reads %q", first)
		}
		if n := text(t, ctx, `String(document.querySelectorAll('#bisect tr.bstep a.runlink').length)`); n == "0" {
			t.Error("no step links to its output")
		}
		meta := text(t, ctx, `document.querySelector('#run-head dl.meta').innerText`)
		// the steps each ran go test: their sum is no entry's few ms
		if !contains(meta, "over 5 revisions", "total time") || strings.Contains(meta, "exit code") || strings.Contains(meta, "duration") ||
			regexp.MustCompile(`total time\n\d{1,2} ms`).MatchString(meta) {
			t.Errorf("the bisect's facts (steps and their total time, not a process's exit code and duration):\n%s", meta)
		}
		s.shot(t, ctx, "run-bisect")
	})
}
