package simulator_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/fakexcode"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/output"
	"github.com/triage-dev/triage/internal/workflow/run"
	"github.com/triage-dev/triage/internal/workflow/session"
	"github.com/triage-dev/triage/internal/workflow/simulator"
	"github.com/triage-dev/triage/internal/xcode"
)

const (
	fixtures = "../../../../shared/fixtures"
	testdata = "../../xcode/testdata"
	booted   = "6E000000-0000-4000-8000-000000000182" // the booted "iPhone 16 Pro"
	listJSON = `{"project":{"name":"Crashy","schemes":["Crashy"],"targets":["Crashy","CrashyKit","CrashyTests"]}}`
)

func abs(t *testing.T, parts ...string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(parts...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s absent (fixtures live beside the repository): %v", p, err)
	}
	return p
}

type env struct {
	c         *mcptest.Client
	fake      *fakexcode.Fake
	reportDir string
	project   string
}

// newEnv installs the fake xcrun/xcodebuild answering the device list and
// rules, and connects to session, run, simulator and output workflows.
func newEnv(t *testing.T, rules ...fakexcode.Rule) *env {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	e := &env{reportDir: t.TempDir(), project: filepath.Join(t.TempDir(), "Crashy.xcodeproj")}
	if err := os.Mkdir(e.project, 0o755); err != nil {
		t.Fatal(err)
	}
	all := append([]fakexcode.Rule{
		{Tool: "xcrun", Match: []string{"simctl", "list", "devices", "-j"}, StdoutFile: abs(t, testdata, "simctl_devices.json")},
		{Tool: "xcodebuild", Match: []string{"-list", "-json"}, Stdout: listJSON},
	}, rules...)
	e.fake = fakexcode.Install(t, fakexcode.Scenario{Rules: all})
	opts := apple.Options{Available: func() error { return nil }, ReportDirs: []string{e.reportDir}}
	e.c = mcptest.ConnectCatalog(t, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{session.Workflow(svc), run.Workflow(svc), simulator.WorkflowWith(svc, opts), output.Workflow(svc)}
	})
	return e
}

func TestListAndBoot(t *testing.T) {
	e := newEnv(t, fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "bootstatus", "4C000000-0000-4000-8000-000000000180", "-b"}})
	r := e.c.Call("sim_list", map[string]any{"name": "iphone 16"})
	if r.IsError || !strings.HasPrefix(r.FirstLine(), "4 SIMULATORS (1 booted)") {
		t.Fatalf("%s", r.Text)
	}
	r = e.c.Call("sim_boot", map[string]any{"simulator_name": "iPhone 16 Pro"})
	if r.Outcome != "ok" || !strings.HasPrefix(r.FirstLine(), "ALREADY BOOTED") {
		t.Errorf("%s: %s", r.Outcome, r.Text)
	}
	r = e.c.Call("sim_boot", map[string]any{"simulator_id": "4C000000-0000-4000-8000-000000000180"})
	if r.Outcome != "ok" || !strings.HasPrefix(r.FirstLine(), "BOOTED: ") {
		t.Errorf("%s: %s", r.Outcome, r.Text)
	}
}

func TestBootFailureIsAFailedOutcome(t *testing.T) {
	e := newEnv(t, fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "bootstatus"}, Stderr: "Unable to boot device because it cannot be located on disk.\n", Exit: 149})
	r := e.c.Call("sim_boot", map[string]any{"simulator_id": "4C000000-0000-4000-8000-000000000180"})
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "BOOT FAILED") || !strings.Contains(r.Text, "cannot be located on disk") {
		t.Errorf("%s: %s", r.Outcome, r.Text)
	}
}

func TestInstallLaunchStop(t *testing.T) {
	app := filepath.Join(t.TempDir(), "Crashy.app")
	if err := os.Mkdir(app, 0o755); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t,
		fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "install", booted, app}},
		fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "launch", "--terminate-running-process", booted, "dev.triage.Crashy", "--flag"}, Stdout: "dev.triage.Crashy: 4242\n"},
		fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "terminate", booted, "dev.triage.Crashy"}},
	)
	if r := e.c.Call("session_set_defaults", map[string]any{"simulator_id": booted}); r.IsError {
		t.Fatal(r.Text)
	}
	if r := e.c.Call("sim_install_app", map[string]any{"app_path": app}); r.Outcome != "ok" || !strings.HasPrefix(r.FirstLine(), "INSTALLED Crashy.app") {
		t.Fatalf("%s: %s", r.Outcome, r.Text)
	}
	r := e.c.Call("sim_launch_app", map[string]any{"bundle_id": "dev.triage.Crashy", "args": []string{"--flag"}, "env": map[string]any{"MODE": "x"}, "watch_s": 0.05})
	var out simulator.LaunchOutput
	r.Decode(t, &out)
	if r.Outcome != "ok" || out.Pid != 4242 || !strings.HasPrefix(r.FirstLine(), "LAUNCHED dev.triage.Crashy (pid 4242)") {
		t.Fatalf("%s: %s", r.Outcome, r.Text)
	}
	if r := e.c.Call("sim_stop_app", map[string]any{"bundle_id": "dev.triage.Crashy"}); r.Outcome != "ok" {
		t.Fatalf("%s: %s", r.Outcome, r.Text)
	}
}

func TestLaunchThatCrashes(t *testing.T) {
	report := abs(t, fixtures, "crash-reports", "maestro_MemoryLeakingApp-2022-08-05-132419.ips")
	e := newEnv(t)
	e.fake = fakexcode.Install(t, fakexcode.Scenario{Rules: []fakexcode.Rule{
		{Tool: "xcrun", Match: []string{"simctl", "launch"}, Stdout: "com.example.MemoryLeakingApp: 777\n", Reports: []string{report}, ReportDir: e.reportDir},
	}})
	r := e.c.Call("sim_launch_app", map[string]any{"simulator_id": booted, "bundle_id": "com.example.MemoryLeakingApp", "watch_s": 0.05})
	var out simulator.LaunchOutput
	r.Decode(t, &out)
	if r.Outcome != "failed" || out.Status != "crashed" || !strings.HasPrefix(r.FirstLine(), "CRASHED: MemoryLeakingApp") {
		t.Fatalf("%s: %s", r.Outcome, r.Text)
	}
	if len(out.CrashReports) != 1 || out.CrashReports[0].Role != "app" || !strings.Contains(r.Text, "crash_report_show") {
		t.Errorf("reports %+v\n%s", out.CrashReports, r.Text)
	}
}

func TestBuildRun(t *testing.T) {
	e := newEnv(t,
		fakexcode.Rule{Tool: "xcodebuild", Match: []string{"-showBuildSettings"}, StdoutFile: abs(t, testdata, "build_settings.json")},
		fakexcode.Rule{Tool: "xcodebuild", Match: []string{"-destination", "platform=iOS Simulator,id=" + booted, "build"}, Stdout: "** BUILD SUCCEEDED **\n"},
		fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "bootstatus", booted}},
		fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "install", booted}},
		fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "launch"}, Stdout: "dev.triage.Crashy: 99\n"},
	)
	r := e.c.Call("sim_build_run", map[string]any{"project_path": e.project, "scheme": "Crashy", "simulator_name": "iPhone 16 Pro", "watch_s": 0.05})
	if r.Outcome != "ok" || !strings.HasPrefix(r.FirstLine(), "BUILT AND LAUNCHED dev.triage.Crashy (pid 99)") {
		t.Fatalf("%s: %s", r.Outcome, r.Text)
	}
	wantApp := "/Users/dev/Library/Caches/triage/DerivedData/Crashy-0a1b2c3d4e5f6071/Build/Products/Debug-iphonesimulator/Crashy.app"
	if _, ok := e.fake.Find(t, "xcrun", "install", booted, wantApp); !ok {
		t.Errorf("install call: %+v", e.fake.Calls(t))
	}
}

func TestBuildRunStopsAtABuildFailure(t *testing.T) {
	log := abs(t, fixtures, "xcodebuild", "bitrise_xcodebuild-compile-error.txt")
	e := newEnv(t, fakexcode.Rule{Tool: "xcodebuild", Match: []string{"build"}, StdoutFile: log, Exit: 65})
	r := e.c.Call("sim_build_run", map[string]any{"project_path": e.project, "scheme": "Crashy", "simulator_id": booted})
	var out struct{ Stage string }
	r.Decode(t, &out)
	if r.Outcome != "failed" || out.Stage != "build" || !strings.HasPrefix(r.FirstLine(), "BUILD FAILED: 6 errors") || !strings.Contains(r.Text, "let2") {
		t.Fatalf("%s: %+v\n%s", r.Outcome, out.Stage, r.Text)
	}
	if _, ok := e.fake.Find(t, "xcrun", "install"); ok {
		t.Error("installed after a failed build")
	}
}

func TestScreenshot(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 12, 34))); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "src.png")
	if err := os.WriteFile(src, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "io", booted, "screenshot"}, WriteArg: 1, WriteFile: src})
	r := e.c.Call("sim_screenshot", map[string]any{"simulator_id": booted})
	var out simulator.ScreenshotOutput
	r.Decode(t, &out)
	if r.Outcome != "ok" || out.Width != 12 || out.Height != 34 || out.Bytes != int64(buf.Len()) {
		t.Fatalf("%s: %+v\n%s", r.Outcome, out, r.Text)
	}
	if len(r.Images) != 1 || r.Images[0].MIMEType != "image/png" || !bytes.Equal(r.Images[0].Data, buf.Bytes()) {
		t.Fatalf("images = %d, want the PNG itself", len(r.Images))
	}
	if !strings.Contains(r.Text, out.Path) {
		t.Errorf("the text does not name the file %s: %s", out.Path, r.Text)
	}
}

// A screenshot too large to send is described, not attached.
func TestScreenshotTooLarge(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 2868, 1320))); err != nil {
		t.Fatal(err)
	}
	big := append(buf.Bytes()[:33:33], make([]byte, catalog.MaxImageBytes)...) // header, then padding
	src := filepath.Join(t.TempDir(), "big.png")
	if err := os.WriteFile(src, big, 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "io", booted, "screenshot"}, WriteArg: 1, WriteFile: src})
	r := e.c.Call("sim_screenshot", map[string]any{"simulator_id": booted})
	var out simulator.ScreenshotOutput
	r.Decode(t, &out)
	if r.Outcome != "ok" || len(r.Images) != 0 || out.Width != 2868 || out.Height != 1320 || out.Bytes != int64(len(big)) {
		t.Fatalf("%s, %d images: %+v\n%s", r.Outcome, len(r.Images), out, r.Text)
	}
	if !strings.Contains(r.Text, "image not attached") || !strings.Contains(r.Text, out.Path) {
		t.Errorf("the text does not explain the missing image: %s", r.Text)
	}
}

// A screenshot over the limit that decodes is sent scaled down; the file
// keeps the full resolution.
func TestScreenshotScaledDown(t *testing.T) {
	// Stored without compression, 1400x1100 RGBA is about 6 MB.
	img := image.NewNRGBA(image.Rect(0, 0, 1400, 1100))
	for i := range img.Pix {
		img.Pix[i] = byte(i / 4 % 251)
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.NoCompression}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if buf.Len() <= catalog.MaxImageBytes {
		t.Fatalf("the test image is %d bytes, not over the limit", buf.Len())
	}
	src := filepath.Join(t.TempDir(), "big.png")
	if err := os.WriteFile(src, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "io", booted, "screenshot"}, WriteArg: 1, WriteFile: src})
	r := e.c.Call("sim_screenshot", map[string]any{"simulator_id": booted})
	var out simulator.ScreenshotOutput
	r.Decode(t, &out)
	if r.Outcome != "ok" || len(r.Images) != 1 || out.Width != 1400 || out.Bytes != int64(buf.Len()) || !strings.Contains(r.Text, "scaled to 700x550") {
		t.Fatalf("%s, %d images: %+v\n%s", r.Outcome, len(r.Images), out, r.Text)
	}
	got, err := png.DecodeConfig(bytes.NewReader(r.Images[0].Data))
	if err != nil || got.Width != 700 || got.Height != 550 || len(r.Images[0].Data) > catalog.MaxImageBytes {
		t.Errorf("attached image %+v (%d bytes): %v", got, len(r.Images[0].Data), err)
	}
}

func TestLogCapture(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	e := newEnv(t, fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "spawn", booted, "log", "stream", "--predicate", `subsystem == "dev.triage.Crashy" OR process == "Crashy"`},
		Stdout: "Timestamp Ty Process[PID:TID]\n2024-10-02 10:00:00.000 E Crashy[4242:1] decoding failed\n", Hang: true, PidFile: pidFile})
	r := e.c.Call("sim_log_capture", map[string]any{"simulator_id": booted, "action": "start", "bundle_id": "dev.triage.Crashy"})
	var started simulator.LogCaptureOutput
	r.Decode(t, &started)
	if r.Outcome != "ok" || started.CaptureID == "" {
		t.Fatalf("%s: %s", r.Outcome, r.Text)
	}
	// Wait until the fake says it is streaming (its pid file is written
	// before "hanging" is printed) through the job's own output.
	for i := 0; ; i++ {
		page := e.c.Call("process_output", map[string]any{"id": started.CaptureID, "wait_s": 5})
		if strings.Contains(page.Text, "hanging") {
			break
		}
		if page.IsError || i == 10 {
			t.Fatalf("the capture never started streaming: %s", page.Text)
		}
	}
	r = e.c.Call("sim_log_capture", map[string]any{"simulator_id": booted, "action": "stop", "capture_id": started.CaptureID})
	if r.Outcome != "ok" || !strings.HasPrefix(r.FirstLine(), "CAPTURE STOPPED") || !strings.Contains(r.Text, "decoding failed") {
		t.Fatalf("%s: %s", r.Outcome, r.Text)
	}
	raw, _ := os.ReadFile(pidFile)
	for _, f := range strings.Fields(string(raw)) {
		var pid int
		if _, err := fmt.Sscan(f, &pid); err == nil && testutil.ProcessAlive(pid) {
			t.Errorf("pid %d outlived the capture", pid)
		}
	}
}

func TestBadInput(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name, tool string
		args       map[string]any
		shows      []string
	}{
		{"app that does not exist", "sim_install_app", map[string]any{"simulator_id": booted, "app_path": "/nonexistent/X.app"}, []string{"does not exist"}},
		{"not an app", "sim_install_app", map[string]any{"simulator_id": booted, "app_path": t.TempDir()}, []string{"not an .app bundle"}},
		{"several simulators", "sim_boot", map[string]any{"simulator_name": "iPhone 16"}, []string{"2 simulators", "4C000000-0000-4000-8000-000000000180"}},
		{"no simulator", "sim_boot", map[string]any{"simulator_name": "Nokia"}, []string{"no available simulator", "iPhone 16 Pro (iOS 18.2)"}},
		{"both simulator fields", "sim_boot", map[string]any{"simulator_name": "iPhone 16", "simulator_id": booted}, []string{"simulator_id", "simulator_name"}},
		{"bad udid", "sim_boot", map[string]any{"simulator_id": "--help"}, []string{"not a simulator UDID"}},
		{"bad bundle id", "sim_launch_app", map[string]any{"simulator_id": booted, "bundle_id": `x" OR 1`}, []string{"not a bundle identifier"}},
		{"unknown action", "sim_log_capture", map[string]any{"simulator_id": booted, "action": "pause"}, []string{"start or stop"}},
		{"unknown capture", "sim_log_capture", map[string]any{"simulator_id": booted, "action": "stop", "capture_id": "p-nope"}, []string{"p-nope"}},
		{"unknown scheme", "sim_build_run", map[string]any{"simulator_id": booted, "project_path": e.project, "scheme": "Nope"}, []string{`scheme "Nope" not found`, "Crashy"}},
		{"no simulator given", "sim_boot", map[string]any{}, []string{"simulator_id"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.c.Call(tc.tool, tc.args)
			if !r.IsError || r.Outcome != "usage_error" {
				t.Fatalf("outcome %q: %s", r.Outcome, r.Text)
			}
			for _, s := range tc.shows {
				if !strings.Contains(r.Text, s) {
					t.Errorf("message lacks %q: %s", s, r.Text)
				}
			}
		})
	}
}

func TestUnavailableOffMacOS(t *testing.T) {
	if xcode.Available() == nil {
		t.Skip("xcodebuild is available here")
	}
	c := mcptest.ConnectCatalog(t, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{simulator.Workflow(svc)}
	})
	if tools := c.Tools(); slices.Contains(tools, "sim_list") {
		t.Errorf("sim_list listed off macOS: %v", tools)
	}
	if r := c.Call("sim_list", nil); !r.IsError || !strings.Contains(r.Text, "requires macOS with Xcode") {
		t.Errorf("%s", r.Text)
	}
}

// TestBuildRunStoreFailure: a build log the store cannot take leaves the
// verdict of the launch as it is, makes the outcome an error and says so.
func TestBuildRunStoreFailure(t *testing.T) {
	e := newEnv(t,
		fakexcode.Rule{Tool: "xcodebuild", Match: []string{"-showBuildSettings"}, StdoutFile: abs(t, testdata, "build_settings.json")},
		fakexcode.Rule{Tool: "xcodebuild", Match: []string{"build"}, Stdout: "** BUILD SUCCEEDED **\n"},
		fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "bootstatus", booted}},
		fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "install", booted}},
		fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "launch"}, Stdout: "dev.triage.Crashy: 99\n"},
	)
	e.c.BreakStore()
	r := e.c.Call("sim_build_run", map[string]any{"project_path": e.project, "scheme": "Crashy", "simulator_id": booted, "watch_s": 0.05})
	r.CheckNotStoredWhole(t, "BUILT AND LAUNCHED dev.triage.Crashy (pid 99)")
}
