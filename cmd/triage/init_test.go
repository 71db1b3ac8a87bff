package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/server"
)

// initIn runs `triage init args…` with home as the home directory.
func initIn(t *testing.T, home string, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("HOME", home)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"init"}, args...), nil, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestInitWritesSkillsAndIsIdempotent(t *testing.T) {
	home := t.TempDir()
	code, out, errs := initIn(t, home, "--client", "claude,vscode")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	for _, dir := range []string{".claude/skills", ".copilot/skills"} {
		for _, name := range []string{"triage-mcp", "triage-cli"} {
			p := filepath.Join(home, dir, name, "SKILL.md")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(b), "---\nname: "+name+"\ndescription: ") || !strings.Contains(out, "wrote "+p) {
				t.Errorf("%s: %.80q; said %q", p, b, out)
			}
		}
	}
	code, out, _ = initIn(t, home, "--client", "claude", "--client", "vscode")
	if code != 0 || strings.Count(out, "unchanged") != 4 || strings.Contains(out, "wrote") {
		t.Errorf("second run (exit %d) rewrote files:\n%s", code, out)
	}
}

// A file triage init did not write is kept, and said so; --force replaces
// it; a file it wrote that differs is updated.
func TestInitKeepsOthersFiles(t *testing.T) {
	home := t.TempDir()
	mine := filepath.Join(home, ".cursor/skills/triage-cli/SKILL.md")
	os.MkdirAll(filepath.Dir(mine), 0o755)
	os.WriteFile(mine, []byte("my own notes\n"), 0o644)
	code, out, _ := initIn(t, home, "--client", "cursor")
	if b, _ := os.ReadFile(mine); string(b) != "my own notes\n" || code != 0 || !strings.Contains(out, "kept (not written by triage init; --force replaces it) "+mine) {
		t.Errorf("exit %d, file %q:\n%s", code, b, out)
	}
	initIn(t, home, "--client", "cursor", "--force")
	if b, _ := os.ReadFile(mine); !strings.Contains(string(b), skillMarker) {
		t.Errorf("--force did not replace it: %q", b)
	}
	os.WriteFile(mine, []byte("---\n"+skillMarker+"\nolder\n"), 0o644)
	if _, out, _ := initIn(t, home, "--client", "cursor"); !strings.Contains(out, "updated "+mine) {
		t.Errorf("an older skill of its own is not updated:\n%s", out)
	}
}

func TestInitPrintWritesNothing(t *testing.T) {
	home := t.TempDir()
	code, out, _ := initIn(t, home, "--client", "codex", "--print")
	if code != 0 || !strings.Contains(out, "==> "+filepath.Join(home, ".agents/skills/triage-cli/SKILL.md")+" (Codex) <==") {
		t.Errorf("exit %d:\n%.300s", code, out)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("--print wrote %v", entries)
	}
}

func TestInitClients(t *testing.T) {
	home := t.TempDir()
	t.Setenv("PATH", t.TempDir()) // no client's command
	if code, _, errs := initIn(t, home); code != 1 || !strings.Contains(errs, "no agent client found") || !strings.Contains(errs, "--client") {
		t.Errorf("nothing found: exit %d: %s", code, errs)
	}
	if code, _, errs := initIn(t, home, "--client", "emacs"); code != 2 || !strings.Contains(errs, "claude, codex, cursor, vscode") {
		t.Errorf("unknown client: exit %d: %s", code, errs)
	}
	os.Mkdir(filepath.Join(home, ".codex"), 0o755)
	code, out, _ := initIn(t, home)
	if code != 0 || !strings.Contains(out, "Codex: wrote") || strings.Contains(out, "Claude") {
		t.Errorf("Codex found by ~/.codex: exit %d:\n%s", code, out)
	}
}

// The skills name every tool with its description, and the CLI skill's
// commands are tools (or triage's own commands) called with arguments the
// tool takes.
func TestSkillsFollowTheCatalog(t *testing.T) {
	g := globals{logLevel: "error", store: ":memory:"}
	srv, svc, err := g.newServer(os.Stderr, true)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	sks := skills(srv.Catalog)
	all := srv.Catalog.SelectAll()
	for _, tool := range all.Tools {
		for _, sk := range sks {
			if !strings.Contains(sk.Text, tool.Description) {
				t.Errorf("%s lacks %s's description", sk.Name, tool.Name)
			}
		}
	}
	cmd := regexp.MustCompile("(?m)(?:^|`)triage ([a-z_]+)((?: --[a-z_]+(?:[ =](?:\"[^\"]*\"|'[^']*'|[^ `-][^ `]*))?)*)")
	found := cmd.FindAllStringSubmatch(sks[1].Text, -1)
	if len(found) < len(all.Tools) {
		t.Errorf("%d triage commands in the CLI skill: fewer than its tools", len(found))
	}
	for _, m := range found {
		name := m[1]
		if commands[name] != nil {
			continue
		}
		props, err := inputSchema(all, name)
		if err != nil {
			t.Errorf("the CLI skill runs %q: %v", m[0], err)
			continue
		}
		for _, f := range regexp.MustCompile(`--([a-z_]+)`).FindAllStringSubmatch(m[2], -1) {
			if _, ok := props[f[1]]; !ok && f[1] != "json" && f[1] != "output" {
				t.Errorf("the CLI skill passes %s --%s, which it does not take", name, f[1])
			}
		}
	}
	if !strings.Contains(sks[0].Text, server.Instructions) {
		t.Errorf("the MCP skill lacks the server's instructions")
	}
}
