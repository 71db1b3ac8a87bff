package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/defaults"
)

func writeConfig(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, FileName)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseValid(t *testing.T) {
	c, err := Parse("c.yaml", []byte(`
workflows: [run, debug]
defaults:
  project_dir: /src/app
  env: {A: "1"}
profiles:
  ios:
    scheme: App
    simulator_name: iPhone 16
profile: ios
debugger:
  backend: lldb
timeouts:
  run: 90s
store:
  path: /tmp/t.db
  max_age: 48h
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings: %v", c.Warnings)
	}
	if c.Defaults.ProjectDir != "/src/app" || c.Defaults.Env["A"] != "1" {
		t.Errorf("defaults = %+v", c.Defaults)
	}
	if c.Profiles["ios"].Scheme != "App" || c.Profile != "ios" || c.Debugger.Backend != "lldb" {
		t.Errorf("config = %+v", c)
	}
	if c.RunTimeout() != 90*time.Second || time.Duration(c.Store.MaxAge) != 48*time.Hour {
		t.Errorf("durations: run %v, max_age %v", c.RunTimeout(), time.Duration(c.Store.MaxAge))
	}
}

func TestParseErrorsNameFileAndLine(t *testing.T) {
	tests := []struct{ body, want string }{
		{"workflows: [run\n", "line"},
		{"store:\n  max_size_mb: lots\n", "line 2"},
		{"timeouts:\n  run: soon\n", `line 2: invalid duration "soon"`},
		{"- a\n- b\n", "line 1: the top level must be a mapping"},
		{"defaults:\n  timeout_s: [1]\n", "line 2"},
	}
	for _, tt := range tests {
		_, err := Parse("/x/.triage/config.yaml", []byte(tt.body))
		if err == nil || !strings.Contains(err.Error(), "/x/.triage/config.yaml") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) error = %v, want file and %q", tt.body, err, tt.want)
		}
	}
}

func TestUnknownKeysWarnWithLine(t *testing.T) {
	c, err := Parse("c.yaml", []byte("workflow: [run]\ndefaults:\n  schem: App\nprofiles:\n  ci:\n    projectdir: /x\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`line 1: unknown key "workflow"`, `line 3: unknown key "defaults.schem"`, `line 6: unknown key "profiles.ci.projectdir"`}
	if len(c.Warnings) != len(want) {
		t.Fatalf("warnings = %q", c.Warnings)
	}
	for i, w := range want {
		if !strings.Contains(c.Warnings[i], w) {
			t.Errorf("warning %d = %q, want %q", i, c.Warnings[i], w)
		}
	}
}

func TestFindWalksUp(t *testing.T) {
	root := t.TempDir()
	p := writeConfig(t, root, "workflows: [run]\n")
	deep := filepath.Join(root, "a", "b")
	os.MkdirAll(deep, 0o755)
	if got := Find(deep); got != p {
		t.Errorf("Find = %q, want %q", got, p)
	}
	if got := Find(t.TempDir()); got != "" && !strings.HasPrefix(got, "/tmp/.triage") {
		t.Errorf("Find(empty dir) = %q, want none", got)
	}
}

func TestEnvOverridesFile(t *testing.T) {
	p := writeConfig(t, t.TempDir(), "workflows: [run]\nstore: {path: /a.db}\nssh: {config: /a/ssh_config}\n")
	c, err := Load(p, []string{"TRIAGE_WORKFLOWS=debug,dump", "TRIAGE_STORE=/b.db", "TRIAGE_RUN_TIMEOUT=5s", "TRIAGE_SSH_CONFIG=/b/ssh_config"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Workflows, ",") != "debug,dump" || c.Store.Path != "/b.db" || c.RunTimeout() != 5*time.Second || c.SSH.Config != "/b/ssh_config" {
		t.Errorf("config = %+v", c)
	}
	if _, err := Load(p, []string{"TRIAGE_RUN_TIMEOUT=later"}); err == nil {
		t.Error("bad TRIAGE_RUN_TIMEOUT accepted")
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none.yaml"), nil); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing explicit config: %v", err)
	}
}

func TestValidate(t *testing.T) {
	for _, body := range []string{"debugger: {backend: gdbx}\n", "profile: 'a b'\n", "output: {budget_bytes: 10}\n"} {
		p := writeConfig(t, t.TempDir(), body)
		if _, err := Load(p, nil); err == nil {
			t.Errorf("Load(%q) succeeded", body)
		}
	}
}

func TestSaveDefaultsKeepsComments(t *testing.T) {
	p := writeConfig(t, t.TempDir(), "# my settings\nworkflows: [run] # only run\n")
	if err := SaveDefaults(p, "default", defaults.Values{Scheme: "App"}); err != nil {
		t.Fatal(err)
	}
	if err := SaveDefaults(p, "ci", defaults.Values{ProjectDir: "/ci"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if !strings.Contains(string(data), "# my settings") || !strings.Contains(string(data), "# only run") {
		t.Errorf("comments lost:\n%s", data)
	}
	c, err := Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Defaults.Scheme != "App" || c.Profiles["ci"].ProjectDir != "/ci" || c.Workflows[0] != "run" {
		t.Errorf("reloaded = %+v", c)
	}
}
