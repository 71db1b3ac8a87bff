package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// skillCommand is one command line of a skill's sh blocks and the exit
// status its comment promises.
type skillCommand struct {
	line string
	exit int
}

var exitComment = regexp.MustCompile(`^(triage .*?)\s+# exit (\d+)`)

// skillCommands are the command lines of the sh blocks in text; each must
// say its exit status.
func skillCommands(t *testing.T, text string) []skillCommand {
	t.Helper()
	var cmds []skillCommand
	in := false
	for _, l := range strings.Split(text, "\n") {
		switch {
		case l == "```sh":
			in = true
		case l == "```":
			in = false
		case in && strings.HasPrefix(l, "triage "):
			m := exitComment.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("a skill command says no exit status: %q", l)
			}
			code, _ := strconv.Atoi(m[2])
			cmds = append(cmds, skillCommand{m[1], code})
		}
	}
	return cmds
}

// skillFile is one file of `triage init --print`'s output.
func skillFile(t *testing.T, printed, name string) string {
	t.Helper()
	for _, part := range strings.Split(printed, "==> ")[1:] {
		header, body, _ := strings.Cut(part, "\n")
		if strings.Contains(header, "/"+name+"/SKILL.md") {
			return body
		}
	}
	t.Fatalf("no %s in:\n%s", name, printed)
	return ""
}

// The answers name what the next commands use, as the skill says: the
// core and program of the suggested dump_open command, the function of the verdict,
// the id of the log.
var (
	verdictFunc = regexp.MustCompile(`^[A-Z].* in (\w+) at `)
	logID       = regexp.MustCompile(`full log (o-[0-9a-f]+)`)
)

func learn(vars map[string]string, out string) {
	if args := suggestedArgs(out, "dump_open"); args != nil && vars["CORE"] == "" {
		for i := 0; i+1 < len(args); i += 2 {
			switch args[i] {
			case "--core":
				vars["CORE"] = args[i+1]
			case "--program":
				vars["PROGRAM"] = args[i+1]
			}
		}
	}
	if m := verdictFunc.FindStringSubmatch(strings.SplitN(out, "\n", 2)[0]); m != nil && vars["FUNCTION"] == "" {
		vars["FUNCTION"] = m[1]
	}
	if m := logID.FindStringSubmatch(out); m != nil && vars["OUTPUT_ID"] == "" {
		vars["OUTPUT_ID"] = m[1]
	}
}

var shellVar = regexp.MustCompile(`\$(\w+)`)

// Every command of the CLI skill that `triage init` writes runs, in order,
// from a shell with the daemon on, on a project whose test crashes, and
// exits as the skill says.
func TestCLISkillCommandsRun(t *testing.T) {
	nativeprojects.Need(t, "make", "cc", "gdb", "lldb-vscode-16")
	dir := nativeprojects.Write(t, nativeprojects.Make())
	sh := newShell(t, dir)
	sh.env = append(sh.env, "HOME="+t.TempDir(), "PATH="+filepath.Dir(triageBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	printed := sh.call(0, "init", "--client", "claude", "--print")
	cmds := skillCommands(t, skillFile(t, printed, "triage-cli"))
	if len(cmds) < 10 {
		t.Fatalf("only %d commands in the CLI skill", len(cmds))
	}
	vars := map[string]string{"DIR": dir}
	for _, c := range cmds {
		for _, m := range shellVar.FindAllStringSubmatch(c.line, -1) {
			if vars[m[1]] == "" {
				t.Fatalf("%q uses $%s before an answer named it", c.line, m[1])
			}
		}
		cmd := exec.Command("sh", "-c", c.line)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), sh.env...)
		for k, v := range vars {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		if code != c.exit {
			t.Errorf("%s: exit %d, the skill says %d:\n%s%s", c.line, code, c.exit, out.String(), errb.String())
		}
		learn(vars, out.String())
	}
}
