package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/hangers"
)

// Every call the CLI suggests (`next: triage …`, `more: triage …`) after a
// crash, a test failure, a core and a hang runs as printed in a POSIX
// shell and is taken: no usage error, no unknown tool or argument.
func TestSuggestedCommandsRunInAShell(t *testing.T) {
	need(t, "gcc", "gcc")
	need(t, "go", "the Go toolchain (golang-go)")
	dir := t.TempDir()
	sh := newShell(t, dir)
	segv := crashers.Build(t, "segv")
	core, exe := crashers.Core(t, "segv")
	module := failingGoModule(t)
	answers := map[string]string{
		"crash":        sh.call(1, "run", "--program", segv),
		"test failure": sh.call(1, "test", "--project_dir", module),
		"core":         sh.call(0, "dump_open", "--core", core, "--program", exe),
		"hang":         sh.call(1, "run", "--program", hangers.ABBA(t).Bin, "--timeout_s", "3"),
		"long output":  sh.call(0, "run", "--program", "seq", "--args", "1", "--args", "3000"),
	}
	ran := 0
	for what, answer := range answers {
		for _, cmd := range suggestedCommands(answer) {
			ran++
			c := exec.Command("sh", "-c", cmd)
			c.Dir = dir
			c.Env = append(append(os.Environ(), sh.env...), "PATH="+filepath.Dir(triageBin)+":"+os.Getenv("PATH"))
			out, err := c.CombinedOutput()
			t.Logf("after the %s: %s → exit %d", what, cmd, exitCode(err))
			if code := exitCode(err); code == 2 || code == 127 || strings.Contains(string(out), "unknown argument") {
				t.Errorf("after the %s, the suggested %s: exit %d:\n%.800s", what, cmd, code, out)
			}
		}
	}
	if ran < len(answers) {
		t.Errorf("only %d suggested commands in %d answers:\n%v", ran, len(answers), answers)
	}
}

// suggestedCommands are the `triage …` commands on an answer's next: and
// more: lines: each up to an unquoted ",", " (" or " or ".
func suggestedCommands(answer string) []string {
	var cmds []string
	for _, line := range strings.Split(answer, "\n") {
		line = strings.TrimSpace(line)
		// "next: triage …", "more: triage …", or an item of a next: list
		// ("- open the core dump …: triage dump_open …").
		if !strings.HasPrefix(line, "next: ") && !strings.HasPrefix(line, "more: ") && !strings.HasPrefix(line, "- ") {
			continue
		}
		for rest := line; ; {
			i := strings.Index(rest, "triage ")
			if i < 0 {
				break
			}
			cmd := commandAt(rest[i:])
			cmds = append(cmds, cmd)
			rest = rest[i+len(cmd):]
		}
	}
	return cmds
}

// commandAt is the command s starts with: up to the first unquoted
// separator of a next: line.
func commandAt(s string) string {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\'':
			quoted = !quoted
		case quoted:
		case s[i] == ',', strings.HasPrefix(s[i:], " ("), strings.HasPrefix(s[i:], " or "), strings.HasPrefix(s[i:], " with "):
			return s[:i]
		}
	}
	return s
}

// suggestedArgs is the arguments of the first command an answer suggests
// for tool (`triage TOOL …` on a next: line), as a shell splits them; nil
// when it suggests none.
func suggestedArgs(answer, tool string) []string {
	for _, cmd := range suggestedCommands(answer) {
		if strings.HasPrefix(cmd, "triage "+tool+" ") {
			return shellSplit(cmd)[2:]
		}
	}
	return nil
}

// shellSplit splits a command line as sh does for the quoting the CLI
// writes: bare words, '…' parts, and \' between them.
func shellSplit(line string) []string {
	var words []string
	var w strings.Builder
	quoted, started := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			w.WriteByte(c)
		case c == '\'':
			quoted, started = true, true
		case c == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
			started = true
		case c == ' ':
			if started {
				words = append(words, w.String())
			}
			w.Reset()
			started = false
		default:
			w.WriteByte(c)
			started = true
		}
	}
	if started {
		words = append(words, w.String())
	}
	return words
}

// failingGoModule is a Go module with one failing test.
func failingGoModule(t *testing.T) string {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"go.mod":         "module example.com/next\n\ngo 1.22\n",
		"calc/calc.go":   "package calc\n\nfunc Add(a, b int) int { return a - b }\n",
		"calc/a_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 2) != 4 {\n\t\tt.Errorf(\"Add(2, 2) = %d, want 4\", Add(2, 2))\n\t}\n}\n",
	})
	return dir
}

// writeTree writes files (relative path → content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
