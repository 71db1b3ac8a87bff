package device_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/testutil/fakexcode"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/device"
	"github.com/triage-dev/triage/internal/workflow/macos"
	"github.com/triage-dev/triage/internal/workflow/output"
	"github.com/triage-dev/triage/internal/workflow/session"
	"github.com/triage-dev/triage/internal/xcode"
)

// The devicectl answers are the recorded ones of internal/xcode/testdata/devicectl
// (see its PROVENANCE.tsv); the crash report is a recorded .ips.

const (
	phone    = "00008120-0014485601E3C01E" // the connected "iPhone" of the recorded list
	fixtures = "../../../../shared/fixtures"
)

func data(t *testing.T, parts ...string) string {
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

func recorded(t *testing.T, name string) string {
	return data(t, "..", "..", "xcode", "testdata", "devicectl", name)
}

// answer answers a devicectl command with a recorded answer.
func answer(t *testing.T, file string, match ...string) fakexcode.Rule {
	return fakexcode.Rule{Tool: "xcrun", Match: append([]string{"devicectl"}, match...), WriteAfter: "--json-output", WriteFile: recorded(t, file)}
}

// failing answers with a recorded failure: answer, stderr, exit status 1.
func failing(t *testing.T, name string, match ...string) fakexcode.Rule {
	r := answer(t, name+".json", match...)
	stderr, err := os.ReadFile(recorded(t, name+".stderr"))
	if err != nil {
		t.Fatal(err)
	}
	r.Stderr, r.Exit = string(stderr), 1
	return r
}

// refusing answers with a recorded failure of which only stderr was
// recorded (no answer file), exit status 1.
func refusing(t *testing.T, name string, match ...string) fakexcode.Rule {
	stderr, err := os.ReadFile(recorded(t, name+".stderr"))
	if err != nil {
		t.Fatal(err)
	}
	return fakexcode.Rule{Tool: "xcrun", Match: append([]string{"devicectl"}, match...), Stderr: string(stderr), Exit: 1}
}

// copyFrom copies reports into the --destination of a crash logs copy.
func copyFrom(reports ...string) fakexcode.Rule {
	return fakexcode.Rule{Tool: "xcrun", Match: []string{"devicectl", "device", "copy", "from", "--domain-type", "systemCrashLogs"},
		ReportDirAfter: "--destination", Reports: reports}
}

// freshReport is the recorded app crash report with its times rewritten to
// now: the report of a crash that just happened (a documented
// transformation).
func freshReport(t *testing.T) string {
	raw, err := os.ReadFile(data(t, fixtures, "crash-reports", "maestro_MemoryLeakingApp-2022-08-05-132419.ips"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Format("2006-01-02 15:04:05.00 -0700")
	raw = regexp.MustCompile(`("(?:timestamp|captureTime)" ?: ?")[^"]*"`).ReplaceAll(raw, []byte(`${1}`+now+`"`))
	p := filepath.Join(t.TempDir(), "MemoryLeakingApp-now.ips")
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type env struct {
	c    *mcptest.Client
	fake *fakexcode.Fake
}

// newEnv installs the fake xcrun answering the recorded device list and
// rules, and connects with the device workflow enabled (it is opt-in).
func newEnv(t *testing.T, rules ...fakexcode.Rule) *env {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	all := append([]fakexcode.Rule{answer(t, "list_devices.json", "list", "devices")}, rules...)
	e := &env{fake: fakexcode.Install(t, fakexcode.Scenario{Rules: all})}
	opts := apple.Options{Available: func() error { return nil }, ReportDirs: []string{t.TempDir()}}
	e.c = mcptest.ConnectCatalogConfig(t, &config.Config{Workflows: []string{"device"}}, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{session.Workflow(svc), device.WorkflowWith(svc, opts), output.Workflow(svc)}
	})
	return e
}

func TestDeviceList(t *testing.T) {
	e := newEnv(t)
	r := e.c.Call("device_list", map[string]any{})
	if r.Outcome != "ok" || r.FirstLine() != "3 DEVICES (1 connected)" {
		t.Fatalf("%s", r.Text)
	}
	want := "  iPhone (iOS 18.4.1, " + phone + "): iPhone 14 Pro, wired, paired, tunnel connected, developer mode enabled"
	if !strings.Contains(r.Text, want+"\n") {
		t.Errorf("no line %q in\n%s", want, r.Text)
	}
	var out device.ListOutput
	r.Decode(t, &out)
	if len(out.Devices) != 3 || out.Devices[1].Platform != "watchOS" || out.Devices[1].Pairing != "paired" {
		t.Errorf("devices: %+v", out.Devices)
	}
}

func TestDeviceLaunchVerdicts(t *testing.T) {
	launch := answer(t, "launch.json", "device", "process", "launch", "--device", phone)
	old := data(t, fixtures, "crash-reports", "maestro_MemoryLeakingApp-2022-08-05-132419.ips")
	tests := []struct {
		name, outcome, line, text string
		rules                     []fakexcode.Rule
	}{
		{"launched", "ok", "LAUNCHED dev.mobile.MemoryLeakingApp (pid 1234) on iPhone (iOS 18.4.1, " + phone + "); no crash report within 1ms",
			"stop: device_stop_app", []fakexcode.Rule{launch, copyFrom(old)}},
		{"crashed on launch", "failed", "CRASHED: MemoryLeakingApp EXC_CRASH (SIGSEGV) within 1ms of launch (crash report from the device)",
			"    MemoryLeakingApp [8592] crashed: EXC_CRASH (SIGSEGV)", []fakexcode.Rule{launch, copyFrom(old, freshReport(t))}},
		{"not installed", "failed", "LAUNCH FAILED: dev.mobile.MemoryLeakingApp on iPhone (iOS 18.4.1, " + phone + "): dev.mobile.MemoryLeakingApp is not installed on the device",
			"(NSOSStatusErrorDomain error -10814)", []fakexcode.Rule{failing(t, "launch_not_installed", "device", "process", "launch")}},
		{"device locked", "failed", "LAUNCH FAILED: dev.mobile.MemoryLeakingApp on iPhone (iOS 18.4.1, " + phone + "): device iPhone (iOS 18.4.1, " + phone + ") is locked: unlock it and retry",
			"FBSOpenApplicationErrorDomain error 7, Locked", []fakexcode.Rule{refusing(t, "launch_locked", "device", "process", "launch")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.rules...)
			r := e.c.Call("device_launch_app", map[string]any{"device_id": phone, "bundle_id": "dev.mobile.MemoryLeakingApp", "process_name": "MemoryLeakingApp", "watch_s": 0.001})
			if r.Outcome != tt.outcome || !strings.HasPrefix(r.FirstLine(), tt.line) || !strings.Contains(r.Text, tt.text) {
				t.Errorf("outcome %s, want %s; text:\n%s\nwant first line %q and %q", r.Outcome, tt.outcome, r.Text, tt.line, tt.text)
			}
		})
	}
}

// TestDeviceSessionDefault: device_id set once is the device every call
// acts on.
func TestDeviceSessionDefault(t *testing.T) {
	e := newEnv(t, answer(t, "launch.json", "device", "process", "launch"), copyFrom())
	if r := e.c.Call("session_set_defaults", map[string]any{"device_id": "iPhone"}); r.IsError {
		t.Fatalf("%s", r.Text)
	}
	r := e.c.Call("device_launch_app", map[string]any{"bundle_id": "com.example.flutterApp", "args": []string{"--arg1"}, "env": map[string]string{"A": "1"}})
	if r.Outcome != "ok" {
		t.Fatalf("%s", r.Text)
	}
	c, ok := e.fake.Find(t, "xcrun", "launch")
	want := "devicectl --json-output * device process launch --device " + phone + ` --environment-variables {"A":"1"} com.example.flutterApp --arg1`
	got := strings.Join(c.Argv, " ")
	if i := strings.Index(got, "--json-output "); ok && i > 0 {
		rest := got[i+len("--json-output "):]
		got = got[:i] + "--json-output * " + rest[strings.Index(rest, " ")+1:]
	}
	if got != want {
		t.Errorf("argv:\n got %s\nwant %s", got, want)
	}
}

func TestDeviceBadInput(t *testing.T) {
	e := newEnv(t, failing(t, "install_app_failed", "device", "install", "app"))
	r := e.c.Call("device_launch_app", map[string]any{"device_id": "0000-NOPE", "bundle_id": "com.example.app"})
	if r.Outcome != "usage_error" || !strings.Contains(r.Text, `no device "0000-NOPE"; devicectl knows: xx's iPhone (iOS, 00008110-001C108C0132401E)`) {
		t.Errorf("unknown device: %s %s", r.Outcome, r.Text)
	}
	r = e.c.Call("device_launch_app", map[string]any{"bundle_id": "com.example.app"})
	if r.Outcome != "usage_error" || !strings.Contains(r.Text, "several devices are known; give device_id") {
		t.Errorf("no device_id with several: %s %s", r.Outcome, r.Text)
	}
	app := filepath.Join(t.TempDir(), "Runner.app")
	if err := os.Mkdir(app, 0o755); err != nil {
		t.Fatal(err)
	}
	r = e.c.Call("device_install_app", map[string]any{"device_id": phone, "app_path": app})
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "INSTALL FAILED: Runner.app on iPhone (iOS 18.4.1, "+phone+"): devicectl device install app: Could not obtain access") {
		t.Errorf("failed install: %s %s", r.Outcome, r.Text)
	}
	r = e.c.Call("device_install_app", map[string]any{"device_id": phone, "app_path": "/nope/App.app"})
	if r.Outcome != "usage_error" || !strings.Contains(r.Text, "does not exist") {
		t.Errorf("missing app: %s %s", r.Outcome, r.Text)
	}
	r = e.c.Call("device_stop_app", map[string]any{"device_id": phone, "pid": 0})
	if r.Outcome != "usage_error" {
		t.Errorf("pid 0: %s %s", r.Outcome, r.Text)
	}
}

func TestDeviceNoneConnected(t *testing.T) {
	raw, err := os.ReadFile(recorded(t, "list_devices.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The recorded list with its devices removed (a documented
	// transformation): devicectl's answer with no device paired.
	empty := regexp.MustCompile(`(?s)"devices" : \[.*\]`).ReplaceAll(raw, []byte(`"devices" : [ ]`))
	p := filepath.Join(t.TempDir(), "none.json")
	if err := os.WriteFile(p, empty, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", t.TempDir())
	fakexcode.Install(t, fakexcode.Scenario{Rules: []fakexcode.Rule{{Tool: "xcrun", Match: []string{"devicectl", "list", "devices"}, WriteAfter: "--json-output", WriteFile: p}}})
	c := mcptest.ConnectCatalogConfig(t, &config.Config{Workflows: []string{"device"}}, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{device.WorkflowWith(svc, apple.Options{Available: func() error { return nil }})}
	})
	if r := c.Call("device_list", map[string]any{}); r.FirstLine() != "0 DEVICES (0 connected)" {
		t.Errorf("list: %s", r.Text)
	}
	r := c.Call("device_launch_app", map[string]any{"bundle_id": "com.example.app"})
	if r.Outcome != "usage_error" || !strings.Contains(r.Text, "no physical device: devicectl lists none") {
		t.Errorf("launch: %s %s", r.Outcome, r.Text)
	}
}

// TestDeviceConsole: the console of a launch is stored and searchable;
// devicectl ending by itself is the app ending.
func TestDeviceConsole(t *testing.T) {
	e := newEnv(t, fakexcode.Rule{Tool: "xcrun", Match: []string{"devicectl", "device", "process", "launch", "--console"}, StdoutFile: recorded(t, "launch_console.stdout")}, copyFrom())
	r := e.c.Call("device_launch_app", map[string]any{"device_id": phone, "bundle_id": "com.example.flutterApp", "console": true, "watch_s": 60})
	var out device.LaunchOutput
	r.Decode(t, &out)
	if r.Outcome != "ok" || out.Status != "exited" || out.Console == nil || out.Console.TotalLines != 5 {
		t.Fatalf("%s %+v\n%s", r.Outcome, out, r.Text)
	}
	s := e.c.Call("output_search", map[string]any{"output_id": out.Console.OutputID, "pattern": "Launched application"})
	if s.IsError || !strings.Contains(s.Text, "Launched application with com.example.my_app bundle identifier.") {
		t.Errorf("search: %s", s.Text)
	}
}

func TestDeviceCrashReports(t *testing.T) {
	e := newEnv(t, copyFrom(data(t, fixtures, "crash-reports", "maestro_MemoryLeakingApp-2022-08-05-132419.ips"), freshReport(t)))
	r := e.c.Call("device_crash_reports", map[string]any{"device_id": phone, "process": "MemoryLeakingApp"})
	var out device.ReportsOutput
	r.Decode(t, &out)
	if r.Outcome != "ok" || !strings.HasPrefix(r.FirstLine(), "1 CRASH REPORTS of MemoryLeakingApp") || len(out.CrashReports) != 1 ||
		filepath.Base(out.CrashReports[0].Path) != "MemoryLeakingApp-now.ips" {
		t.Errorf("%s %+v\n%s", r.Outcome, out, r.Text)
	}
}

// TestDeviceWorkflowIsOptIn: without `workflows:` naming it, the device
// tools are absent and a call to one says how to enable them.
func TestDeviceWorkflowIsOptIn(t *testing.T) {
	c := mcptest.ConnectCatalog(t, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{session.Workflow(svc), device.WorkflowWith(svc, apple.Options{Available: func() error { return nil }})}
	})
	r := c.Call("device_list", map[string]any{})
	if !r.IsError || !strings.Contains(r.Text, `workflow "device", which is not enabled`) {
		t.Errorf("%s", r.Text)
	}
}

// TestDeviceBuildRun: the scheme is built for the device (its platform and
// UDID), the app of the recorded build settings installed and launched;
// a failed install ends it at that stage.
func TestDeviceBuildRun(t *testing.T) {
	project := filepath.Join(t.TempDir(), "Crashy.xcodeproj")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	common := []fakexcode.Rule{
		{Tool: "xcodebuild", Match: []string{"-list", "-json"}, Stdout: `{"project":{"name":"Crashy","schemes":["Crashy"],"targets":["Crashy"]}}`},
		{Tool: "xcodebuild", Match: []string{"-showBuildSettings"}, StdoutFile: data(t, "..", "..", "xcode", "testdata", "build_settings.json")},
		{Tool: "xcodebuild", Match: []string{"-destination", "platform=iOS,id=" + phone, "build"}, Stdout: "** BUILD SUCCEEDED **\n"},
	}
	args := map[string]any{"project_path": project, "scheme": "Crashy", "device_id": phone, "watch_s": 0.001}
	e := newEnv(t, append(common, answer(t, "install_app.json", "device", "install", "app"), answer(t, "launch.json", "device", "process", "launch"), copyFrom())...)
	r := e.c.Call("device_build_run", args)
	var out device.BuildRunOutput
	r.Decode(t, &out)
	if r.Outcome != "ok" || r.FirstLine() != "BUILT AND LAUNCHED dev.triage.Crashy (pid 1234) on iPhone (iOS 18.4.1, "+phone+"); no crash report within 1ms" ||
		out.Stage != "launch" || out.App == nil {
		t.Fatalf("%s %+v\n%s", r.Outcome, out, r.Text)
	}
	if _, ok := e.fake.Find(t, "xcrun", "install", out.App.Path); !ok {
		t.Errorf("the app built was not installed: %+v", e.fake.Calls(t))
	}
	e = newEnv(t, append(common, failing(t, "install_app_failed", "device", "install", "app"))...)
	r = e.c.Call("device_build_run", args)
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "BUILT, but installing failed: devicectl device install app: Could not obtain access") {
		t.Errorf("failed install: %s\n%s", r.Outcome, r.Text)
	}
}

// TestDeviceUnavailableOffMacOS: enabled but without Xcode, the device and
// macos tools are not listed and a call says why.
func TestDeviceUnavailableOffMacOS(t *testing.T) {
	if xcode.Available() == nil {
		t.Skip("Xcode is available here")
	}
	c := mcptest.ConnectCatalogConfig(t, &config.Config{Workflows: []string{"device", "macos"}}, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{session.Workflow(svc), device.Workflow(svc), macos.Workflow(svc)}
	})
	for _, name := range []string{"device_list", "macos_launch_app"} {
		if slices.Contains(c.Tools(), name) {
			t.Errorf("%s listed off macOS: %v", name, c.Tools())
		}
		if r := c.Call(name, map[string]any{}); !r.IsError || !strings.Contains(r.Text, "requires macOS with Xcode") {
			t.Errorf("calling %s: %s", name, r.Text)
		}
	}
}
