package realworld

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callTimeout bounds one triage invocation; triage's own timeouts are far
// shorter, so reaching it is a defect of its own.
const callTimeout = 10 * time.Minute

// toolResult is `triage call TOOL --output json`.
type toolResult struct {
	Text    string          `json:"text"`
	Outcome string          `json:"outcome"`
	Output  json.RawMessage `json:"output"`
	Exit    int             `json:"-"`
}

// callTool runs `triage call tool --json args` against the cell's store.
func callTool(t testing.TB, store, tool string, args map[string]any) toolResult {
	t.Helper()
	js, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, triageBin, "call", tool, "--store", store, "--output", "json", "--json", string(js))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var r toolResult
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		t.Fatalf("triage call %s %s: %v (exit %v)\nstdout: %s\nstderr: %s", tool, js, jerr, err, out, stderr.Bytes())
	}
	r.Exit = exitCode(err)
	return r
}

// toolCall is one call of a session.
type toolCall struct {
	Tool string
	Args map[string]any
}

// callSession makes the calls in order in one `triage serve` session over
// stdio, against the cell's store, and returns each answer's text (a
// failed outcome is an answer too: dump_report's is, for a crash).
func callSession(store string, calls []toolCall) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cmd := exec.Command(triageBin, "serve", "--store", store)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "realworld"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	var texts []string
	for _, c := range calls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
		if err != nil {
			return texts, fmt.Errorf("%s: %w", c.Tool, err)
		}
		var b strings.Builder
		for _, content := range res.Content {
			if tc, ok := content.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		texts = append(texts, b.String())
	}
	return texts, nil
}

// rawLog reads the whole stored log of a run back, page by page, the way
// an agent would: output_get on the output_id the test call returned.
func rawLog(t *testing.T, store, id string) []string {
	t.Helper()
	var lines []string
	for {
		r := callTool(t, store, "output_get", map[string]any{"output_id": id, "offset": len(lines), "limit": 5000})
		var page struct {
			Lines      []string `json:"lines"`
			TotalLines int      `json:"total_lines"`
		}
		if err := json.Unmarshal(r.Output, &page); err != nil {
			t.Fatalf("output_get %s: %v\n%s", id, err, r.Text)
		}
		lines = append(lines, page.Lines...)
		if len(page.Lines) == 0 || len(lines) >= page.TotalLines {
			return lines
		}
	}
}

// filterLog runs `triage filter --toolchain T` over a log on its standard
// input, as a CI pipeline does.
func filterLog(t *testing.T, toolchain string, log []string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, triageBin, "filter", "--toolchain", toolchain)
	cmd.Stdin = strings.NewReader(strings.Join(log, "\n") + "\n")
	out, err := cmd.Output()
	if code := exitCode(err); code < 0 {
		t.Fatalf("triage filter: %v", err)
	}
	return string(out), exitCode(err)
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// copyProject copies the pristine corpus entry into a fresh directory,
// keeping its files' times: an automake tree whose Makefile.am looked newer
// than its Makefile.in would try to regenerate it.
//
// The directory's name is not the test's: a cell's name may hold
// parentheses ("exit(0)"), which a Makefile recipe's shell would read as
// syntax.
func copyProject(t testing.TB, src string) string {
	t.Helper()
	tmp, err := os.MkdirTemp("", "realworld-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	dir := filepath.Join(tmp, filepath.Base(src))
	if out, err := exec.Command("cp", "-R", "-p", src, dir).CombinedOutput(); err != nil {
		t.Fatalf("copy %s: %v\n%s", src, err, out)
	}
	return dir
}

// faultLoc is where a cell's FAULT marker ended up: file (relative to the
// project) and 1-based line.
type faultLoc struct {
	File string
	Line int
}

func (l faultLoc) String() string {
	if l.File == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", l.File, l.Line)
}

// applyEdits patches the copy and returns the FAULT line's location.
func applyEdits(t *testing.T, dir string, edits []Edit) faultLoc {
	t.Helper()
	for _, e := range edits {
		p := filepath.Join(dir, e.File)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), e.Anchor); n != 1 {
			t.Fatalf("%s: anchor %q occurs %d times, want 1 (corpus version changed?)", e.File, e.Anchor, n)
		}
		s := strings.Replace(string(b), e.Anchor, e.Anchor+e.Insert, 1)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range edits {
		if !strings.Contains(e.Insert, "FAULT") {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(dir, e.File))
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "// FAULT") || strings.Contains(line, "/* FAULT */") {
				return faultLoc{e.File, i + 1}
			}
		}
	}
	if len(edits) > 0 {
		t.Fatal("no FAULT line in the cell's edits")
	}
	return faultLoc{} // a pristine run
}

// prepare runs the project's preparation (./configure) in the copy, with
// the cell's environment, as a user would before asking triage.
func prepare(t testing.TB, p Project, dir string, env map[string]string) {
	t.Helper()
	for _, argv := range p.Prepare {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.Env = os.Environ()
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("%s in %s: %v\n%s", strings.Join(argv, " "), dir, err, out)
		}
	}
}

// cellEnv is the project's environment with the cell's env option over
// it, as strings.
func cellEnv(c Cell) map[string]string {
	env := maps.Clone(projects[c.Project].Env)
	if env == nil {
		env = map[string]string{}
	}
	if m, ok := c.Options["env"].(map[string]any); ok {
		for k, v := range m {
			env[k] = fmt.Sprint(v)
		}
	}
	return env
}

// keepLogs writes a cell's raw log and its two answers under
// $TRIAGE_VERDICTS_KEEP, when set, to read a wrong cell's evidence.
func keepLogs(t *testing.T, c Cell, raw []string, test, filtered string) {
	dir := os.Getenv("TRIAGE_VERDICTS_KEEP")
	if dir == "" {
		return
	}
	base := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(c.Name()))
	for ext, text := range map[string]string{".raw.log": strings.Join(raw, "\n") + "\n", ".test.txt": test, ".filter.txt": filtered} {
		if err := os.WriteFile(base+ext, []byte(text), 0o644); err != nil {
			t.Logf("keeping logs: %v", err)
		}
	}
}
