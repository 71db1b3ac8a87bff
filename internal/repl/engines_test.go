package repl

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/spawn"
)

const crasherSrc = `#include <stdio.h>
int depth(int n) { return n <= 0 ? 0 : 1 + depth(n - 1); }
int main(void) { printf("%d\n", depth(3)); return 0; }
`

func buildC(t *testing.T) string {
	t.Helper()
	gcc := need(t, "gcc", "gcc")
	dir := t.TempDir()
	src := filepath.Join(dir, "prog.c")
	writeFile(t, src, crasherSrc)
	bin := filepath.Join(dir, "prog")
	var out strings.Builder
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{gcc, "-g", "-O0", "-o", bin, src}, Combined: &out})
	if err != nil || !res.Success() {
		t.Fatalf("gcc: %v\n%s", err, out.String())
	}
	return bin
}

func need(t *testing.T, tool, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		t.Skipf("%s not found (Debian package %s)", tool, pkg)
	}
	return p
}

func TestRealGDB(t *testing.T) {
	gdb := need(t, "gdb", "gdb")
	bin := buildC(t)
	s := startFake(t, Config{
		Argv: []string{gdb, "-nx", "-q",
			"-iex", "set prompt (triage-gdb) ", "-iex", "set pagination off",
			"-iex", "set confirm off", "-iex", "set width 0", bin},
		Prompt: regexpMust(`\(triage-gdb\) `),
	})
	runExpect(t, s, "break depth if n == 1", "Breakpoint 1 at")
	runExpect(t, s, "run", "Breakpoint 1, depth (n=1)")
	runExpect(t, s, "bt", "#3  0x")
	// An error goes to stderr: it must land in this command's output, not the next.
	runExpect(t, s, "p nosuch", `No symbol "nosuch" in current context.`)
	runExpect(t, s, "p n*100", " = 100")
	runExpect(t, s, "continue", "exited normally")
}

func TestRealLLDB(t *testing.T) {
	lldb := need(t, "lldb-16", "lldb-16")
	bin := buildC(t)
	s := startFake(t, Config{
		Argv: []string{lldb, "--no-lldbinit",
			"-O", `settings set prompt "(triage-lldb) "`, "-O", "settings set use-color false", "-O", "settings set target.disable-stdio true", bin},
		Prompt: regexpMust(`\(triage-lldb\) ?`),
		// `p` needs a stable process state; embedded Python does not.
		Sentinel:    SumSentinel("script print(%d+%d)"),
		QuitCommand: "quit",
	})
	runExpect(t, s, "breakpoint set -n depth -c 'n == 1'", "Breakpoint 1: where = prog`depth")
	runUntil(t, s, "run", "stop reason = breakpoint 1.1")
	runExpect(t, s, "bt", "frame #3")
	runExpect(t, s, "p nosuch", "use of undeclared identifier 'nosuch'")
	runExpect(t, s, "p n*100", "= 100")
	runUntil(t, s, "continue", "exited with status = 0")
}

func runExpect(t *testing.T, s *Session, cmd, want string) {
	t.Helper()
	got, err := s.Run(context.Background(), cmd)
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, got)
	}
	if !strings.Contains(got, want) {
		t.Fatalf("%s: output lacks %q:\n%s", cmd, want, got)
	}
}

func runUntil(t *testing.T, s *Session, cmd, want string) {
	t.Helper()
	got, err := s.RunUntil(context.Background(), cmd, regexpMust(`Process \d+ (stopped|exited)`))
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, got)
	}
	if !strings.Contains(got, want) {
		t.Fatalf("%s: output lacks %q:\n%s", cmd, want, got)
	}
}
