package macos_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/testutil/fakexcode"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/macos"
	"github.com/triage-dev/triage/internal/workflow/output"
	"github.com/triage-dev/triage/internal/workflow/session"
)

// The crash report is a recorded macOS app's (MemoryLeakingApp, SIGSEGV:
// ../shared/fixtures/PROVENANCE.tsv), copied into the report directory as
// ReportCrash would write it when the app dies; `open` and `pkill` succeed
// silently or fail with their exit status alone (no output is invented).

const fixtures = "../../../../shared/fixtures"

const listJSON = `{"project":{"name":"Crashy","schemes":["Crashy"],"targets":["Crashy","CrashyKit","CrashyTests"]}}`

func abs(t *testing.T, parts ...string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(parts...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		if parts[0] == fixtures && errors.Is(err, fs.ErrNotExist) {
			t.Skipf("the shared fixtures are not beside this checkout (%s): %v", fixtures, err)
		}
		t.Fatalf("%s: %v", p, err)
	}
	return p
}

type env struct {
	c         *mcptest.Client
	fake      *fakexcode.Fake
	reportDir string
	app       string // an empty MemoryLeakingApp.app
}

func newEnv(t *testing.T, rules ...fakexcode.Rule) *env {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	e := &env{reportDir: t.TempDir(), app: filepath.Join(t.TempDir(), "MemoryLeakingApp.app")}
	if err := os.Mkdir(e.app, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range rules {
		if rules[i].Reports != nil {
			rules[i].ReportDir = e.reportDir
		}
	}
	all := append([]fakexcode.Rule{{Tool: "xcodebuild", Match: []string{"-list", "-json"}, Stdout: listJSON}}, rules...)
	e.fake = fakexcode.Install(t, fakexcode.Scenario{Rules: all, Tools: []string{"open", "pkill"}})
	opts := apple.Options{Available: func() error { return nil }, ReportDirs: []string{e.reportDir}}
	e.c = mcptest.ConnectCatalogConfig(t, &config.Config{Workflows: []string{"macos"}}, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{session.Workflow(svc), macos.WorkflowWith(svc, opts), output.Workflow(svc)}
	})
	return e
}

func TestMacLaunchVerdicts(t *testing.T) {
	report := abs(t, fixtures, "crash-reports", "maestro_MemoryLeakingApp-2022-08-05-132419.ips")
	tests := []struct {
		name, outcome, line, text string
		rule                      fakexcode.Rule
	}{
		{"launched", "ok", "LAUNCHED ", "stop: macos_stop_app {\"process_name\":\"MemoryLeakingApp\"}", fakexcode.Rule{Tool: "open", Match: []string{"-n", "-a"}}},
		{"crashed", "failed", "CRASHED: MemoryLeakingApp EXC_CRASH (SIGSEGV) within 1ms of launch (crash report)", "    MemoryLeakingApp [8592] crashed: EXC_CRASH (SIGSEGV)",
			fakexcode.Rule{Tool: "open", Match: []string{"-n", "-a"}, Reports: []string{report}}},
		{"open failed", "failed", "LAUNCH FAILED: ", "MemoryLeakingApp.app: open -n -a: pid ", fakexcode.Rule{Tool: "open", Exit: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.rule)
			r := e.c.Call("macos_launch_app", map[string]any{"app_path": e.app, "args": []string{"-x"}, "env": map[string]string{"B": "2", "A": "1"}, "watch_s": 0.001})
			if r.Outcome != tt.outcome || !strings.HasPrefix(r.FirstLine(), tt.line) || !strings.Contains(r.Text, tt.text) {
				t.Errorf("outcome %s, want %s:\n%s\nwant %q and %q", r.Outcome, tt.outcome, r.Text, tt.line, tt.text)
			}
			c, _ := e.fake.Find(t, "open")
			if got, want := strings.Join(c.Argv, " "), "-n -a "+e.app+" --env A=1 --env B=2 --args -x"; got != want {
				t.Errorf("argv %q, want %q", got, want)
			}
		})
	}
}

func TestMacLaunchByBundleIDAndBadInput(t *testing.T) {
	e := newEnv(t, fakexcode.Rule{Tool: "open", Match: []string{"-n", "-b", "dev.mobile.MemoryLeakingApp"}})
	r := e.c.Call("macos_launch_app", map[string]any{"bundle_id": "dev.mobile.MemoryLeakingApp", "watch_s": 0.001})
	if r.Outcome != "ok" || r.FirstLine() != "LAUNCHED dev.mobile.MemoryLeakingApp (process MemoryLeakingApp); no crash within 1ms" {
		t.Errorf("%s %s", r.Outcome, r.Text)
	}
	for _, args := range []map[string]any{
		{},
		{"app_path": e.app, "bundle_id": "dev.mobile.MemoryLeakingApp"},
		{"app_path": "/nope/App.app"},
		{"bundle_id": "not a bundle id"},
	} {
		if r := e.c.Call("macos_launch_app", args); r.Outcome != "usage_error" {
			t.Errorf("%v: %s %s", args, r.Outcome, r.Text)
		}
	}
}

func TestMacStop(t *testing.T) {
	e := newEnv(t, fakexcode.Rule{Tool: "pkill", Match: []string{"-TERM", "-x", "MemoryLeakingApp"}}, fakexcode.Rule{Tool: "pkill", Exit: 1})
	if r := e.c.Call("macos_stop_app", map[string]any{"process_name": "MemoryLeakingApp"}); r.Outcome != "ok" || r.FirstLine() != "STOPPED MemoryLeakingApp (SIGTERM)" {
		t.Errorf("%s %s", r.Outcome, r.Text)
	}
	r := e.c.Call("macos_stop_app", map[string]any{"process_name": "Other"})
	if r.Outcome != "usage_error" || !strings.Contains(r.Text, "no process named Other is running") {
		t.Errorf("not running: %s %s", r.Outcome, r.Text)
	}
	if r := e.c.Call("macos_stop_app", map[string]any{"process_name": "-9"}); r.Outcome != "usage_error" {
		t.Errorf("option as name: %s %s", r.Outcome, r.Text)
	}
}

// TestMacBuildRun: the scheme is built for platform=macOS, its app (from
// the recorded build settings) launched by path and watched.
func TestMacBuildRun(t *testing.T) {
	project := filepath.Join(t.TempDir(), "Crashy.xcodeproj")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t,
		fakexcode.Rule{Tool: "xcodebuild", Match: []string{"-showBuildSettings"}, StdoutFile: abs(t, "..", "..", "xcode", "testdata", "build_settings.json")},
		fakexcode.Rule{Tool: "xcodebuild", Match: []string{"-destination", "platform=macOS", "build"}, Stdout: "** BUILD SUCCEEDED **\n"},
		fakexcode.Rule{Tool: "open", Match: []string{"-n", "-a"}},
	)
	r := e.c.Call("macos_build_run", map[string]any{"project_path": project, "scheme": "Crashy", "watch_s": 0.001})
	if r.Outcome != "ok" || !strings.HasPrefix(r.FirstLine(), "BUILT AND LAUNCHED ") || !strings.Contains(r.Text, "app: ") {
		t.Fatalf("%s %s", r.Outcome, r.Text)
	}
	var out macos.BuildRunOutput
	r.Decode(t, &out)
	if out.App == nil || out.App.BundleID != "dev.triage.Crashy" || out.Launch == nil || out.Launch.Status != "launched" {
		t.Errorf("%+v", out)
	}
	if _, ok := e.fake.Find(t, "open", "-a", out.App.Path); !ok {
		t.Errorf("app not opened by path: %+v", e.fake.Calls(t))
	}
}
