package debug_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/debugger/dap"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/fakexcode"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/debug"
)

// The simulator side is the fake xcrun (simctl and xcrun --find); the app
// is a real program (crashers' sleeper) under a real debugger.
const (
	bootedSim   = "6E000000-0000-4000-8000-000000000182" // the booted "iPhone 16 Pro"
	shutdownSim = "4C000000-0000-4000-8000-000000000180" // "iPhone 16", shut down
	appID       = "dev.triage.Sleeper"
)

// readyWriter closes ready when the sleeper prints "ready" (it has reached
// main and is about to sleep).
type readyWriter struct {
	once  sync.Once
	mu    sync.Mutex
	buf   strings.Builder
	ready chan struct{}
}

func (w *readyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), "ready") {
		w.once.Do(func() { close(w.ready) })
	}
	return len(p), nil
}

// startApp runs the sleeper and returns its pid once it is in main.
func startApp(t *testing.T) int {
	t.Helper()
	w := &readyWriter{ready: make(chan struct{})}
	p, err := spawn.Start(context.Background(), spawn.Spec{Argv: []string{crashers.Build(t, "sleeper"), "600"}, Stdout: w})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(time.Second) })
	select {
	case <-w.ready:
	case <-p.Done():
		t.Fatal("the sleeper exited before printing ready")
	case <-time.After(30 * time.Second):
		t.Fatal("the sleeper never printed ready")
	}
	return p.Pid()
}

// xcodeTool links a real tool into a fake Xcode directory that is not on
// PATH, so only xcrun --find can lead the workflow to it.
func xcodeTool(t *testing.T, real, name string) string {
	t.Helper()
	target, err := exec.LookPath(real)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "Xcode.app", "Contents", "Developer", "usr", "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, name)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	return link
}

func launchctlList(pid int) string {
	return fmt.Sprintf("PID\tStatus\tLabel\n-\t0\tcom.apple.assertiond\n%d\t0\tUIKitApplication:%s[0x1a2b][rb-legacy]\n812\t0\tUIKitApplication:com.apple.mobilesafari[0x9c1f][rb-legacy]\n", pid, appID)
}

// connectSim installs the fake xcrun with the rules and connects to the
// debug workflow with debug_attach_sim forced available.
func connectSim(t *testing.T, rules ...fakexcode.Rule) (*mcptest.Client, *fakexcode.Fake) {
	t.Helper()
	devices, err := filepath.Abs("../../xcode/testdata/simctl_devices.json")
	if err != nil {
		t.Fatal(err)
	}
	rules = append([]fakexcode.Rule{{Tool: "xcrun", Match: []string{"simctl", "list", "devices", "-j"}, StdoutFile: devices}}, rules...)
	f := fakexcode.Install(t, fakexcode.Scenario{Rules: rules})
	c := mcptest.ConnectCatalog(t, func(svc *services.Set) []*catalog.Workflow {
		w := debug.Workflow(svc)
		for i, tool := range w.Tools {
			if tool.Name == "debug_attach_sim" {
				w.Tools[i] = debug.AttachSimTool(svc, apple.Options{Available: func() error { return nil }})
			}
		}
		return []*catalog.Workflow{w}
	})
	return c, f
}

// stopped reports whether pid is stopped (traced or by a signal).
func stopped(t *testing.T, pid int) bool {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(raw), ") ")
	return strings.HasPrefix(rest, "t") || strings.HasPrefix(rest, "T")
}

func TestAttachSim(t *testing.T) {
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			pid := startApp(t)
			name := map[string]string{"dap": "lldb-dap", "lldb": "lldb"}[backend.name]
			link := xcodeTool(t, backend.tool, name)
			c, _ := connectSim(t,
				fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "spawn", bootedSim, "launchctl", "list"}, Stdout: launchctlList(pid)},
				fakexcode.Rule{Tool: "xcrun", Match: []string{"--find", name}, Stdout: link + "\n"})
			r := c.Call("debug_attach_sim", map[string]any{"simulator_name": "iPhone 16 Pro", "bundle_id": appID, "backend": backend.name})
			if r.IsError || !strings.HasPrefix(r.FirstLine(), "STOPPED") || !strings.Contains(r.Text, fmt.Sprintf("pid %d", pid)) || !strings.Contains(r.Text, link) {
				t.Fatalf("attach (outcome %s):\n%s", r.Outcome, r.Text)
			}
			if r.Outcome != "ok" || !strings.Contains(r.Text, "main at sleeper.c:") {
				t.Errorf("attach: outcome %s, want ok with the app's frames:\n%s", r.Outcome, r.Text)
			}
			if !stopped(t, pid) {
				t.Error("the app is not stopped after the attach")
			}
			st := c.Call("debug_stack", nil)
			if st.IsError || !strings.Contains(st.Text, "main") {
				t.Errorf("stack of the attached app:\n%s", st.Text)
			}
			if backend.name == "dap" {
				// The adapter that runs is the one xcrun named.
				b, err := c.Svc.Debugger().Backend(context.Background(), "")
				if err != nil {
					t.Fatal(err)
				}
				cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", debugger.Unwrap(b).(*dap.Backend).AdapterPid()))
				if err != nil || !strings.HasPrefix(string(cmdline), link+"\x00") {
					t.Errorf("adapter command line %q, want %s: %v", cmdline, link, err)
				}
			}
			if d := c.Call("debug_detach", nil); d.IsError {
				t.Fatalf("detach:\n%s", d.Text)
			}
		})
	}
}

// launch: true launches the app through simctl --wait-for-debugger and
// attaches to the pid simctl prints.
func TestAttachSimLaunch(t *testing.T) {
	needTool(t, "lldb-vscode-16", "lldb-16")
	pid := startApp(t)
	link := xcodeTool(t, "lldb-vscode-16", "lldb-dap")
	c, f := connectSim(t,
		fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "launch", "--wait-for-debugger", "--terminate-running-process", bootedSim, appID}, Stdout: fmt.Sprintf("%s: %d\n", appID, pid)},
		fakexcode.Rule{Tool: "xcrun", Match: []string{"--find", "lldb-dap"}, Stdout: link + "\n"})
	r := c.Call("debug_attach_sim", map[string]any{"simulator_id": bootedSim, "bundle_id": appID, "launch": true})
	if r.IsError || !strings.HasPrefix(r.FirstLine(), "STOPPED") || !strings.Contains(r.Text, "launched to wait for the debugger") {
		t.Fatalf("attach:\n%s", r.Text)
	}
	if _, ok := f.Find(t, "xcrun", "launchctl"); ok {
		t.Error("a launch also listed the running apps")
	}
	if !stopped(t, pid) {
		t.Error("the app is not stopped after the attach")
	}
}

func TestAttachSimBadInput(t *testing.T) {
	c, f := connectSim(t,
		fakexcode.Rule{Tool: "xcrun", Match: []string{"simctl", "spawn", bootedSim, "launchctl", "list"}, Stdout: launchctlList(4242)},
		fakexcode.Rule{Tool: "xcrun", Match: []string{"--find", "lldb-dap"}, Stdout: "/Applications/Xcode.app/Contents/Developer/usr/bin/lldb-dap\n"})
	for _, tt := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"simulator_id": bootedSim, "bundle_id": "dev.triage.Other"},
			[]string{"app dev.triage.Other is not running", "running apps: com.apple.mobilesafari, dev.triage.Sleeper", "launch: true"}},
		{map[string]any{"simulator_id": shutdownSim, "bundle_id": appID},
			[]string{"iPhone 16", "is not booted", "sim_boot"}},
		{map[string]any{"simulator_name": "iPhone 16", "bundle_id": appID},
			[]string{"2 simulators are named \"iPhone 16\"", "4C000000-0000-4000-8000-000000000180", "5D000000-0000-4000-8000-000000000182"}},
		{map[string]any{"simulator_name": "iPhone 99", "bundle_id": appID},
			[]string{"no available simulator named \"iPhone 99\"", "iPhone 16 Pro (iOS 18.2)"}},
		{map[string]any{"simulator_id": "9F000000-0000-4000-8000-000000000000", "bundle_id": appID},
			[]string{"no simulator has UDID 9F000000-0000-4000-8000-000000000000"}},
		{map[string]any{"simulator_id": bootedSim, "bundle_id": "-x; rm"},
			[]string{"is not a bundle identifier"}},
		{map[string]any{"bundle_id": appID},
			[]string{"simulator_id", "simulator_name"}},
		{map[string]any{"simulator_id": bootedSim, "bundle_id": appID, "backend": "gdb", "launch": true},
			[]string{"use dap or lldb"}},
	} {
		r := c.Call("debug_attach_sim", tt.args)
		if !r.IsError || r.Outcome != "usage_error" {
			t.Errorf("%v: outcome %s, isError %v:\n%s", tt.args, r.Outcome, r.IsError, r.Text)
		}
		for _, w := range tt.want {
			if !strings.Contains(r.Text, w) {
				t.Errorf("%v: %q lacks %q", tt.args, r.Text, w)
			}
		}
	}
	if call, ok := f.Find(t, "xcrun", "launch"); ok {
		t.Errorf("a refused call launched the app: %v", call.Argv)
	}
}

// Off macOS the tool is hidden and a call explains why.
func TestAttachSimHiddenWithoutXcode(t *testing.T) {
	c := mcptest.ConnectCatalog(t, func(svc *services.Set) []*catalog.Workflow {
		w := debug.Workflow(svc)
		for i, tool := range w.Tools {
			if tool.Name == "debug_attach_sim" {
				w.Tools[i] = debug.AttachSimTool(svc, apple.Options{Available: func() error { return fmt.Errorf("requires macOS with Xcode") }})
			}
		}
		return []*catalog.Workflow{w}
	})
	for _, name := range c.Tools() {
		if name == "debug_attach_sim" {
			t.Fatal("debug_attach_sim is listed without Xcode")
		}
	}
	r := c.Call("debug_attach_sim", map[string]any{"simulator_id": bootedSim, "bundle_id": appID})
	if !r.IsError || !strings.Contains(r.Text, "debug_attach_sim is unavailable here: requires macOS with Xcode") {
		t.Errorf("call without Xcode:\n%s", r.Text)
	}
}
