package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// triage runs the CLI in-process from dir and returns its exit status, stdout
// and stderr.
func triage(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	if dir != "" {
		t.Chdir(dir)
	}
	t.Setenv("TRIAGE_STORE", ":memory:")
	var stdout, stderr strings.Builder
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args     []string
		code     int
		inStdout string
		inStderr string
	}{
		{[]string{"version"}, 0, "triage ", ""},
		{[]string{}, 2, "", "usage: triage"},
		{[]string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{[]string{"call"}, 2, "", "name the tool"},
		{[]string{"call", "nope"}, 2, "", `unknown tool "nope"`},
		{[]string{"call", "session_show_defaults", "--json", "{bad"}, 2, "", "--json"},
		{[]string{"call", "session_set_defaults", "--timeout_s", "soon"}, 2, "", "want a number"},
		{[]string{"call", "session_set_defaults", "--nope", "1"}, 2, "", "unknown argument --nope"},
		{[]string{"call", "session_set_defaults", "--json", `{"scheme": 3}`}, 2, "scheme", ""},
		{[]string{"call", "session_set_defaults", "--scheme", "App", "--output", "yaml"}, 2, "", "--output"},
		{[]string{"call", "session_set_defaults", "--scheme", "App"}, 0, "DEFAULTS SET", ""},
		{[]string{"serve", "--http", "0.0.0.0:1"}, 2, "", "not loopback"},
		{[]string{"tools", "--workflows", "nope"}, 2, "", `unknown workflow "nope"`},
		{[]string{"tools", "--log-level", "loud"}, 2, "", "--log-level"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := triage(t, dir, tt.args...)
			if code != tt.code || !strings.Contains(stdout, tt.inStdout) || !strings.Contains(stderr, tt.inStderr) {
				t.Errorf("exit %d (want %d)\nstdout: %.300s\nstderr: %.300s", code, tt.code, stdout, stderr)
			}
		})
	}
}

func TestCallArgumentTypes(t *testing.T) {
	code, stdout, stderr := triage(t, t.TempDir(), "call", "session_set_defaults",
		"--timeout_s", "90", "--build_command", "make", "--build_command", "-j4",
		"--env", `{"CC":"clang"}`, "--output", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		Outcome string `json:"outcome"`
		Output  struct {
			Defaults struct {
				TimeoutS     float64           `json:"timeout_s"`
				BuildCommand []string          `json:"build_command"`
				Env          map[string]string `json:"env"`
			} `json:"defaults"`
		} `json:"output"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("--output json: %v\n%s", err, stdout)
	}
	d := res.Output.Defaults
	if res.Outcome != "ok" || d.TimeoutS != 90 || strings.Join(d.BuildCommand, " ") != "make -j4" || d.Env["CC"] != "clang" {
		t.Errorf("parsed = %+v", res)
	}
}

func TestConfigFileAndFlagsLayering(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".triage"), 0o755)
	os.WriteFile(filepath.Join(dir, ".triage", "config.yaml"), []byte("defaults:\n  scheme: FromFile\nprofiles:\n  ci:\n    scheme: FromCI\nbogus: 1\n"), 0o644)
	sub := filepath.Join(dir, "a", "b")
	os.MkdirAll(sub, 0o755)

	code, stdout, stderr := triage(t, sub, "call", "session_show_defaults")
	if code != 0 || !strings.Contains(stdout, "scheme: FromFile") {
		t.Errorf("config found by walking up: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "unknown key") || !strings.Contains(stderr, "bogus") || !strings.Contains(stderr, "line 6") {
		t.Errorf("unknown key not warned about: %s", stderr)
	}
	t.Setenv("TRIAGE_PROFILE", "ci")
	if _, stdout, _ := triage(t, sub, "call", "session_show_defaults"); !strings.Contains(stdout, "scheme: FromCI") {
		t.Errorf("TRIAGE_PROFILE not applied: %s", stdout)
	}
	if _, stdout, _ := triage(t, sub, "call", "session_show_defaults", "--profile", "default"); !strings.Contains(stdout, "scheme: FromFile") {
		t.Errorf("--profile flag does not win over env: %s", stdout)
	}
	os.WriteFile(filepath.Join(dir, ".triage", "config.yaml"), []byte("defaults:\n  scheme: [1\n"), 0o644)
	code, _, stderr = triage(t, sub, "tools")
	if code != 2 || !strings.Contains(stderr, "config.yaml") || !strings.Contains(stderr, "line") {
		t.Errorf("invalid config: exit %d, %s", code, stderr)
	}
}

func TestToolsOutputs(t *testing.T) {
	code, stdout, _ := triage(t, t.TempDir(), "tools", "--json")
	var tools []struct{ Name string }
	if code != 0 || json.Unmarshal([]byte(stdout), &tools) != nil || len(tools) < 5 {
		t.Fatalf("tools --json: exit %d\n%.300s", code, stdout)
	}
	_, md, _ := triage(t, "", "tools", "--markdown", "--all")
	if !strings.Contains(md, "### `session_set_defaults`") || !strings.Contains(md, "| `scheme` | string |") {
		t.Errorf("markdown lacks tool sections or argument tables:\n%.500s", md)
	}
}
