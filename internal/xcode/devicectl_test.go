package xcode

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil/fakexcode"
)

// The devicectl answers in testdata/devicectl are recorded ones (see its
// PROVENANCE.tsv); the fake xcrun writes them where --json-output says.

func devicectlData(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "devicectl", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// answer is a rule answering a devicectl command with a recorded answer.
func answer(t testing.TB, file string, match ...string) fakexcode.Rule {
	return fakexcode.Rule{Tool: "xcrun", Match: append([]string{"devicectl"}, match...), WriteAfter: "--json-output", WriteFile: devicectlData(t, file)}
}

// failing is a rule answering with a recorded failure: its answer, its
// stderr and exit status 1.
func failing(t testing.TB, name string, match ...string) fakexcode.Rule {
	r := answer(t, name+".json", match...)
	stderr, err := os.ReadFile(devicectlData(t, name+".stderr"))
	if err != nil {
		t.Fatal(err)
	}
	r.Stderr, r.Exit = string(stderr), 1
	return r
}

// stderrOnly is a rule answering with a recorded failure of which only
// stderr was recorded: no answer file, exit status 1.
func stderrOnly(t testing.TB, name string, match ...string) fakexcode.Rule {
	stderr, err := os.ReadFile(devicectlData(t, name+".stderr"))
	if err != nil {
		t.Fatal(err)
	}
	return fakexcode.Rule{Tool: "xcrun", Match: append([]string{"devicectl"}, match...), Stderr: string(stderr), Exit: 1}
}

// noDevices is the recorded device list with its devices removed: what
// devicectl answers with no device paired (a documented transformation).
func noDevices(t testing.TB) string {
	raw, err := os.ReadFile(devicectlData(t, "list_devices.json"))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(raw, []byte(`"devices" : [`))
	j := bytes.LastIndex(raw, []byte("]"))
	out := append(append(append([]byte{}, raw[:i+len(`"devices" : [`)]...), '\n'), raw[j:]...)
	p := filepath.Join(t.TempDir(), "no_devices.json")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// freshReport is the recorded macOS app crash report with its two times
// rewritten to now (a documented transformation: a device's report of a
// crash that just happened), under a name of its own.
func freshReport(t testing.TB) string {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "fixtures", "crash-reports", "maestro_MemoryLeakingApp-2022-08-05-132419.ips"))
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("the shared fixtures are not beside this checkout: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Format("2006-01-02 15:04:05.00 -0700")
	re := regexp.MustCompile(`("(?:timestamp|captureTime)" ?: ?")[^"]*"`)
	raw = re.ReplaceAll(raw, []byte(`${1}`+now+`"`))
	p := filepath.Join(t.TempDir(), "MemoryLeakingApp-now.ips")
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestListAndFindDevices(t *testing.T) {
	ctx := context.Background()
	fakexcode.Install(t, fakexcode.Scenario{Rules: []fakexcode.Rule{answer(t, "list_devices.json", "list", "devices")}})
	devices, err := ListDevices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(devices) != 3 {
		t.Fatalf("%d devices, want 3: %+v", len(devices), devices)
	}
	phone := devices[2]
	want := PhysicalDevice{Identifier: "6986451F-A2FF-48DE-A70E-45E06E1F1446", UDID: "00008120-0014485601E3C01E", Name: "iPhone",
		Model: "iPhone 14 Pro", Platform: "iOS", OSVersion: "18.4.1", Transport: "wired", Pairing: "paired", Tunnel: "connected", DeveloperMode: "enabled"}
	if phone != want {
		t.Errorf("device 3:\n got %+v\nwant %+v", phone, want)
	}
	for _, id := range []string{"00008120-0014485601E3C01E", "6986451f-a2ff-48de-a70e-45e06e1f1446", "iPhone"} {
		if d, err := FindDevice(ctx, id); err != nil || d.UDID != want.UDID {
			t.Errorf("FindDevice(%q) = %+v, %v", id, d, err)
		}
	}
	_, err = FindDevice(ctx, "0000-NOPE")
	var nf *DeviceNotFoundError
	if !errors.As(err, &nf) || !CallerError(err) || !strings.Contains(err.Error(), `no device "0000-NOPE"; devicectl knows: xx's iPhone (iOS, 00008110-001C108C0132401E)`) {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := FindDevice(ctx, ""); err == nil || !strings.Contains(err.Error(), "several devices are known; give device_id") {
		t.Errorf("no id with three devices: %v", err)
	}
}

func TestFindDeviceWithNoneConnected(t *testing.T) {
	fakexcode.Install(t, fakexcode.Scenario{Rules: []fakexcode.Rule{
		{Tool: "xcrun", Match: []string{"devicectl", "list", "devices"}, WriteAfter: "--json-output", WriteFile: noDevices(t)},
	}})
	_, err := FindDevice(context.Background(), "")
	if !CallerError(err) || !strings.HasPrefix(err.Error(), "no physical device: devicectl lists none") {
		t.Errorf("no device: %v", err)
	}
}

func TestInstallOnDevice(t *testing.T) {
	ctx := context.Background()
	d := PhysicalDevice{UDID: "00008120-0014485601E3C01E", Name: "iPhone", Platform: "iOS", OSVersion: "18.4.1"}
	f := fakexcode.Install(t, fakexcode.Scenario{Rules: []fakexcode.Rule{
		failing(t, "install_app_failed", "install", "app", "--device", d.UDID, "/missing/App.app"),
		answer(t, "install_app.json", "install", "app", "--device", d.UDID),
	}})
	id, err := InstallOnDevice(ctx, d, "/build/App.app")
	if err != nil || id != "com.example.bundle" {
		t.Errorf("install: %q, %v", id, err)
	}
	if c, ok := f.Find(t, "xcrun", "/build/App.app"); !ok || c.Argv[0] != "devicectl" || c.Argv[1] != "--json-output" {
		t.Errorf("argv: %+v", c.Argv)
	}
	_, err = InstallOnDevice(ctx, d, "/missing/App.app")
	var de *DevicectlError
	want := "devicectl device install app: Could not obtain access to one or more requested file system resources because CoreDevice was unable to create bookmark data. (com.apple.dt.CoreDeviceError error 1005)"
	if !errors.As(err, &de) || err.Error() != want {
		t.Errorf("failed install:\n got %v\nwant %s", err, want)
	}
}

func TestLaunchOnDeviceVerdicts(t *testing.T) {
	d := PhysicalDevice{UDID: "00008120-0014485601E3C01E", Name: "iPhone", Platform: "iOS", OSVersion: "18.4.1"}
	// Its answer is not read (none is recorded), only the files it copies.
	copyFrom := fakexcode.Rule{Tool: "xcrun", Match: []string{"devicectl", "device", "copy", "from", "--device", d.UDID, "--domain-type", "systemCrashLogs"}, ReportDirAfter: "--destination"}
	old := filepath.Join("..", "..", "..", "shared", "fixtures", "crash-reports", "maestro_MemoryLeakingApp-2022-08-05-132419.ips")
	launch := answer(t, "launch.json", "device", "process", "launch", "--device", d.UDID)
	tests := []struct {
		name, status, line string
		rules              []fakexcode.Rule
		reports            int
	}{
		{"launched", "launched", "LAUNCHED dev.mobile.MemoryLeakingApp (pid 1234) on iPhone (iOS 18.4.1, 00008120-0014485601E3C01E); no crash report within 0s",
			[]fakexcode.Rule{launch, withReports(copyFrom, old)}, 0},
		{"crashed", "crashed", "CRASHED: MemoryLeakingApp EXC_CRASH (SIGSEGV) within 0s of launch (crash report from the device)",
			[]fakexcode.Rule{launch, withReports(copyFrom, old, freshReport(t))}, 1},
		{"not installed", "failed", "LAUNCH FAILED: dev.mobile.MemoryLeakingApp on iPhone (iOS 18.4.1, 00008120-0014485601E3C01E): dev.mobile.MemoryLeakingApp is not installed on the device (install it first: device_install_app)",
			[]fakexcode.Rule{failing(t, "launch_not_installed", "device", "process", "launch")}, 0},
		{"locked", "failed", "LAUNCH FAILED: dev.mobile.MemoryLeakingApp on iPhone (iOS 18.4.1, 00008120-0014485601E3C01E): device iPhone (iOS 18.4.1, 00008120-0014485601E3C01E) is locked: unlock it and retry",
			[]fakexcode.Rule{stderrOnly(t, "launch_locked", "device", "process", "launch")}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fakexcode.Install(t, fakexcode.Scenario{Rules: tt.rules})
			dir := t.TempDir()
			stale := filepath.Join(dir, d.UDID, "MemoryLeakingApp-stale.ips")
			if err := os.MkdirAll(filepath.Dir(stale), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(stale, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			o := LaunchOnDevice(context.Background(), DeviceLaunchRequest{Device: d, BundleID: "dev.mobile.MemoryLeakingApp", Process: "MemoryLeakingApp", ReportDir: dir})
			if _, err := os.Stat(stale); tt.status != "failed" && err == nil {
				t.Errorf("the last copy of the crash logs is still there")
			}
			if o.Status != tt.status || !strings.HasPrefix(o.Line, tt.line) || len(o.CrashReports) != tt.reports {
				t.Errorf("got %s %q with %d reports, want %s %q with %d", o.Status, o.Line, len(o.CrashReports), tt.status, tt.line, tt.reports)
			}
			if tt.reports > 0 && !strings.Contains(o.CrashReports[0].Summary, "MemoryLeakingApp [8592] crashed: EXC_CRASH (SIGSEGV)") {
				t.Errorf("summary: %q", o.CrashReports[0].Summary)
			}
		})
	}
}

// TestLaunchOnDeviceConsoleLocked: a console launch on a locked device
// prints devicectl's refusal into the console and says it is locked.
func TestLaunchOnDeviceConsoleLocked(t *testing.T) {
	d := PhysicalDevice{UDID: "00008120-0014485601E3C01E", Name: "iPhone"}
	fakexcode.Install(t, fakexcode.Scenario{Rules: []fakexcode.Rule{stderrOnly(t, "launch_locked", "device", "process", "launch", "--console")}})
	var console bytes.Buffer
	o := LaunchOnDevice(context.Background(), DeviceLaunchRequest{Device: d, BundleID: "com.exponent.Test", Watch: time.Minute, Console: &console, ReportDir: t.TempDir()})
	want := "LAUNCH FAILED: com.exponent.Test on iPhone (00008120-0014485601E3C01E): device iPhone (00008120-0014485601E3C01E) is locked: unlock it and retry"
	if o.Status != "failed" || !strings.HasPrefix(o.Line, want) || !strings.Contains(console.String(), "BSErrorCodeDescription = Locked") {
		t.Errorf("%s %q\nwant %q; console %q", o.Status, o.Line, want, console.String())
	}
}

// TestDevicectlStderrOnly: a failure with no answer file is read from
// stderr, its first ERROR line the message; a lock is told from the chain.
func TestDevicectlStderrOnly(t *testing.T) {
	fakexcode.Install(t, fakexcode.Scenario{Rules: []fakexcode.Rule{stderrOnly(t, "launch_locked", "device", "process", "launch")}})
	_, err := devicectl(context.Background(), []string{"device", "process", "launch", "--device", "X", "com.exponent.Test"}, 0)
	var de *DevicectlError
	if !errors.As(err, &de) || !de.DeviceLocked() || de.AppNotInstalled() ||
		err.Error() != "devicectl device process launch: The application failed to launch. (com.apple.dt.CoreDeviceError error 10002.)" {
		t.Errorf("%#v", err)
	}
	raw, rerr := os.ReadFile(devicectlData(t, "launch_not_installed.stderr"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	if (&DevicectlError{Detail: string(raw)}).DeviceLocked() {
		t.Errorf("a missing app taken for a locked device")
	}
}

func withReports(r fakexcode.Rule, reports ...string) fakexcode.Rule {
	r.Reports = reports
	return r
}

// TestLaunchOnDeviceConsole: a console launch's output reaches the caller's
// writer with the argv flutter recorded (--console, the environment as
// JSON, the app's arguments after its bundle id); devicectl ending by
// itself means the app ended.
func TestLaunchOnDeviceConsole(t *testing.T) {
	d := PhysicalDevice{UDID: "00008120-0014485601E3C01E"}
	f := fakexcode.Install(t, fakexcode.Scenario{Rules: []fakexcode.Rule{
		{Tool: "xcrun", Match: []string{"devicectl", "device", "process", "launch", "--console"}, StdoutFile: devicectlData(t, "launch_console.stdout")},
		{Tool: "xcrun", Match: []string{"devicectl", "device", "copy", "from"}},
	}})
	var console bytes.Buffer
	o := LaunchOnDevice(context.Background(), DeviceLaunchRequest{Device: d, BundleID: "com.example.my_app", Process: "Runner",
		Args: []string{"--arg1"}, Env: map[string]string{"OS_ACTIVITY_DT_MODE": "enable"}, Watch: time.Minute, Console: &console, ReportDir: t.TempDir()})
	if o.Status != "exited" || !strings.Contains(console.String(), "Launched application with com.example.my_app bundle identifier.") {
		t.Errorf("%s %q; console %q", o.Status, o.Line, console.String())
	}
	c, _ := f.Find(t, "xcrun", "--console")
	want := []string{"devicectl", "device", "process", "launch", "--device", d.UDID, "--console", "--environment-variables", `{"OS_ACTIVITY_DT_MODE":"enable"}`, "com.example.my_app", "--arg1"}
	if strings.Join(c.Argv, " ") != strings.Join(want, " ") {
		t.Errorf("argv %q\nwant %q", c.Argv, want)
	}
}
