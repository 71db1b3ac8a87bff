package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// inspect runs one MCP Inspector CLI call and decodes its JSON answer.
func inspect(t *testing.T, dir string, target []string, args ...string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	argv := append([]string{"--cli"}, target...)
	argv = append(argv, args...)
	cmd := exec.CommandContext(ctx, inspector(t), argv...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TRIAGE_STORE=:memory:")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("inspector %v: %v\nstderr:\n%s", args, err, stderr.String())
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("inspector %v: output is not JSON: %v\n%s", args, err, out)
	}
	return v
}

func toolNames(v map[string]any) []string {
	var names []string
	tools, _ := v["tools"].([]any)
	for _, tool := range tools {
		m, _ := tool.(map[string]any)
		names = append(names, m["name"].(string))
	}
	return names
}

func resultText(t *testing.T, v map[string]any) string {
	t.Helper()
	if isErr, _ := v["isError"].(bool); isErr {
		t.Fatalf("tool error: %v", v)
	}
	content, _ := v["content"].([]any)
	var b strings.Builder
	for _, c := range content {
		m, _ := c.(map[string]any)
		s, _ := m["text"].(string)
		b.WriteString(s)
	}
	return b.String()
}

// checkSession runs the acceptance conversation: tools/list, set defaults, show
// them (possibly from a later server process when persisted), and doctor.
func checkSession(t *testing.T, dir string, target []string) {
	names := toolNames(inspect(t, dir, target, "--method", "tools/list"))
	for _, want := range []string{"session_set_defaults", "session_show_defaults", "session_clear_defaults", "session_use_profile", "doctor"} {
		if !contains(names, want) {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}
	set := resultText(t, inspect(t, dir, target, "--method", "tools/call", "--tool-name", "session_set_defaults",
		"--tool-arg", "scheme=Demo", "project_dir=/src/demo", "persist=true"))
	if !strings.HasPrefix(set, "DEFAULTS SET (profile default)") || !strings.Contains(set, "scheme: Demo") {
		t.Errorf("session_set_defaults = %q", set)
	}
	show := inspect(t, dir, target, "--method", "tools/call", "--tool-name", "session_show_defaults")
	sc, _ := show["structuredContent"].(map[string]any)
	defs, _ := sc["defaults"].(map[string]any)
	if defs["scheme"] != "Demo" || defs["project_dir"] != "/src/demo" {
		t.Errorf("session_show_defaults structured = %v", sc)
	}
	doc := inspect(t, dir, target, "--method", "tools/call", "--tool-name", "doctor")
	text := resultText(t, doc)
	if !strings.HasPrefix(text, "DOCTOR: ") || !regexp.MustCompile(`(?m)^\s+gdb\s+GNU gdb`).MatchString(text) {
		t.Errorf("doctor text = %q", text)
	}
	sc, _ = doc["structuredContent"].(map[string]any)
	cores, _ := sc["cores"].(map[string]any)
	if cores["core_pattern"] == nil || sc["os"] == "" {
		t.Errorf("doctor structured output lacks cores/os: %v", sc)
	}
}

func TestInspectorOverStdio(t *testing.T) {
	dir := t.TempDir()
	// Every Inspector call starts a new server process; the defaults survive
	// between them because persist=true wrote .triage/config.yaml in dir.
	checkSession(t, dir, []string{triageBin, "serve"})
	if _, err := os.Stat(filepath.Join(dir, ".triage", "config.yaml")); err != nil {
		t.Errorf("persisted config: %v", err)
	}
}

func TestInspectorOverHTTP(t *testing.T) {
	dir := t.TempDir()
	url, _ := startHTTP(t, dir, "e2e-token-0123456789")
	checkSession(t, dir, []string{url, "--transport", "http", "--header", "Authorization: Bearer e2e-token-0123456789"})
}

// startHTTP runs `triage serve --http 127.0.0.1:0` and returns its URL and
// pid once the server says it is listening.
func startHTTP(t testing.TB, dir, token string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, triageBin, "serve", "--http", "127.0.0.1:0", "--token", token)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TRIAGE_STORE=:memory:")
	// Stopped the polite way, so that it removes its own temporary
	// directories (its in-memory store's bodies); killed only if it hangs.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 20 * time.Second
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	re := regexp.MustCompile(`url=(http://\S+)`)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			go func() { // keep draining so the server never blocks on stderr
				for sc.Scan() {
				}
			}()
			return m[1], cmd.Process.Pid
		}
	}
	t.Fatalf("triage serve --http exited before listening: %v", sc.Err())
	return "", 0
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
