package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// agentClient is an agent client triage init installs skills for: where
// its documentation says personal (user-level) skills live, and how to
// tell it is on this machine.
type agentClient struct {
	Name, Label string
	// Dir is the skills directory under the home directory.
	Dir string
	// Marks are files or directories under the home directory, and
	// Commands programs on PATH, any one of which says it is installed.
	Marks, Commands []string
}

// agentClients are the clients with their documented personal skills
// directories: Claude Code ~/.claude/skills, Codex $HOME/.agents/skills
// (its USER scope), Cursor ~/.cursor/skills, VS Code (GitHub Copilot's
// agent mode) ~/.copilot/skills.
var agentClients = []agentClient{
	{Name: "claude", Label: "Claude Code", Dir: ".claude/skills", Marks: []string{".claude"}, Commands: []string{"claude"}},
	{Name: "codex", Label: "Codex", Dir: ".agents/skills", Marks: []string{".codex"}, Commands: []string{"codex"}},
	{Name: "cursor", Label: "Cursor", Dir: ".cursor/skills", Marks: []string{".cursor"}, Commands: []string{"cursor"}},
	{Name: "vscode", Label: "VS Code", Dir: ".copilot/skills", Marks: []string{".vscode", ".copilot"}, Commands: []string{"code"}},
}

func clientNames() string {
	var names []string
	for _, c := range agentClients {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

// found reports whether the client is installed for the user of home.
func (c agentClient) found(home string) bool {
	for _, m := range c.Marks {
		if _, err := os.Stat(filepath.Join(home, m)); err == nil {
			return true
		}
	}
	for _, cmd := range c.Commands {
		if _, err := exec.LookPath(cmd); err == nil {
			return true
		}
	}
	return false
}

// chooseClients are the clients named by --client, else those found.
func chooseClients(named []string, home string) ([]agentClient, error) {
	var out []agentClient
	for _, n := range named {
		i := slices.IndexFunc(agentClients, func(c agentClient) bool { return c.Name == n })
		if i < 0 {
			return nil, usagef("--client %q: use one of %s", n, clientNames())
		}
		out = append(out, agentClients[i])
	}
	if len(named) > 0 {
		return out, nil
	}
	for _, c := range agentClients {
		if c.found(home) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no agent client found in %s or on PATH (looked for %s); name one with --client", home, clientNames())
	}
	return out, nil
}

const initUsage = `triage init [--client NAME]... [--print] [--force]
  installs triage's two agent skills (triage-mcp: the MCP tools; triage-cli: the same loop as
  shell commands) into the personal skills directory of each agent client found here
  (` + "claude, codex, cursor, vscode" + `), or of those named with --client. Running it again
  rewrites its own files; a file it did not write is kept, and said so (--force replaces it).`

// cmdInit writes (or, with --print, shows) the skills.
func cmdInit(_ context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprintln(stderr, initUsage) }
	var named listFlag
	fs.Var(&named, "client", "an agent client to install for (repeatable, or a,b): "+clientNames())
	show := fs.Bool("print", false, "print the files instead of writing them")
	force := fs.Bool("force", false, "replace a skill file that triage init did not write")
	if err := parseFlags(fs, args, stderr); err != nil {
		return 0, err
	}
	if fs.NArg() > 0 {
		return 0, usagef("unexpected argument %q\n%s", fs.Arg(0), initUsage)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return 0, err
	}
	clients, err := chooseClients(named, home)
	if err != nil {
		return 0, err
	}
	g := globals{logLevel: "error", store: ":memory:"}
	srv, svc, err := g.newServer(stderr, true)
	if err != nil {
		return 0, err
	}
	defer svc.Close()
	sks := skills(srv.Catalog)
	code := exitOK
	for _, c := range clients {
		for _, sk := range sks {
			path := filepath.Join(home, c.Dir, sk.Name, "SKILL.md")
			if *show {
				fmt.Fprintf(stdout, "==> %s (%s) <==\n%s\n", path, c.Label, sk.Text)
				continue
			}
			what, err := writeSkill(path, sk.Text, *force)
			if err != nil {
				fmt.Fprintf(stderr, "triage init: %s: %v\n", path, err)
				code = exitFailure
				continue
			}
			fmt.Fprintf(stdout, "%s: %s %s\n", c.Label, what, path)
		}
	}
	return code, nil
}

// writeSkill writes text to path unless a file triage init did not write
// is there (force replaces it), and says what it did.
func writeSkill(path, text string, force bool) (string, error) {
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", err
	case bytes.Equal(old, []byte(text)):
		return "unchanged", nil
	case !bytes.Contains(old, []byte(skillMarker[:len("<!-- written by triage init")])) && !force:
		return "kept (not written by triage init; --force replaces it)", nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".SKILL.md.*")
	if err != nil {
		return "", err
	}
	_, werr := tmp.WriteString(text)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o644), os.Rename(tmp.Name(), path)); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	if old != nil {
		return "updated", nil
	}
	return "wrote", nil
}

// listFlag collects a repeatable flag, each value possibly a comma list.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}
