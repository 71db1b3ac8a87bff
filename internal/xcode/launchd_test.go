package xcode

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// launchctlSample is `xcrun simctl spawn booted launchctl list` on an
// iOS 18 simulator, shortened.
const launchctlSample = `PID	Status	Label
-	0	com.apple.assertiond.expiration
412	0	com.apple.backboardd
-	0	UIKitApplication:com.apple.Preferences[0x4d1e][rb-legacy]
9123	0	UIKitApplication:dev.triage.Crashy[0x7b2a][rb-legacy]
812	0	UIKitApplication:com.apple.mobilesafari[0x9c1f][rb-legacy]
notapid	0	broken
`

func TestParseLaunchctlListAndAppPid(t *testing.T) {
	jobs, err := ParseLaunchctlList([]byte(launchctlSample))
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 5 || jobs[0].Pid != 0 || jobs[1].Pid != 412 || jobs[3].BundleID() != "dev.triage.Crashy" || jobs[1].BundleID() != "" {
		t.Fatalf("jobs = %+v", jobs)
	}
	if pid, err := AppPid(jobs, "dev.triage.Crashy"); err != nil || pid != 9123 {
		t.Errorf("AppPid = %d, %v", pid, err)
	}
	// Not running: Preferences has a job but no pid.
	_, err = AppPid(jobs, "com.apple.Preferences")
	var nr *AppNotRunningError
	if !errors.As(err, &nr) || !slices.Equal(nr.Running, []string{"com.apple.mobilesafari", "dev.triage.Crashy"}) ||
		!strings.Contains(err.Error(), "running apps: com.apple.mobilesafari, dev.triage.Crashy") {
		t.Errorf("AppPid of a stopped app: %v", err)
	}
	if _, err := AppPid(nil, "x.y"); err == nil || !strings.Contains(err.Error(), "no app is running") {
		t.Errorf("no jobs: %v", err)
	}
	if _, err := ParseLaunchctlList([]byte("PID\tStatus\tLabel\n")); err == nil {
		t.Error("a header alone parsed")
	}
}

func TestSimDebugCommands(t *testing.T) {
	for _, tt := range []struct {
		cmd  Command
		want string
	}{
		{LaunchctlListCommand("booted"), "xcrun simctl spawn booted launchctl list"},
		{LaunchForDebuggerCommand("U", "a.b"), "xcrun simctl launch --wait-for-debugger --terminate-running-process U a.b"},
		{FindToolCommand("lldb-dap"), "xcrun --find lldb-dap"},
	} {
		if got := strings.Join(tt.cmd.Argv, " "); got != tt.want {
			t.Errorf("argv %q, want %q", got, tt.want)
		}
	}
}
