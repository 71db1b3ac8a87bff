package xcode

import (
	"strings"
	"testing"
)

func TestCheckBundleID(t *testing.T) {
	for _, id := range []string{"com.example.App", "dev.triage.Crashy-2", "App"} {
		if err := CheckBundleID(id); err != nil {
			t.Errorf("%q: %v", id, err)
		}
	}
	// Bundle ids are interpolated into a log predicate: nothing that could
	// close the string or start an option may pass.
	for _, id := range []string{"", "-help", `a" OR process == "x`, "a b", "a\nb", "a\x00b", ".hidden", "com.example.App\\", "a'b"} {
		if err := CheckBundleID(id); err == nil {
			t.Errorf("%q accepted", id)
		}
	}
}

func TestCheckUDID(t *testing.T) {
	for _, id := range []string{"6E000000-0000-4000-8000-000000000182", "booted", "abcdef01-2345-6789-abcd-ef0123456789"} {
		if err := CheckUDID(id); err != nil {
			t.Errorf("%q: %v", id, err)
		}
	}
	for _, id := range []string{"", "--help", "6E000000-0000-4000-8000-00000000018", "6E000000-0000-4000-8000-000000000182 ", "iPhone 16", "BOOTED2"} {
		if err := CheckUDID(id); err == nil {
			t.Errorf("%q accepted", id)
		}
	}
}

func TestParseLaunch(t *testing.T) {
	cases := []struct {
		out  string
		pid  int
		fail bool
	}{
		{"com.example.App: 4242\n", 4242, false},
		{"warning: something\ncom.example.App: 17", 17, false},
		{"", 0, true},
		{"com.example.App: -1\n", 0, true},
		{"com.example.App: abc\n", 0, true},
		{"An error was encountered processing the command (domain=FBSOpenApplicationServiceErrorDomain, code=4):\n", 0, true},
	}
	for _, tc := range cases {
		pid, err := ParseLaunch([]byte(tc.out))
		if (err != nil) != tc.fail || pid != tc.pid {
			t.Errorf("%q: pid %d err %v", tc.out, pid, err)
		}
	}
}

func TestLaunchCommandPrefixesEnv(t *testing.T) {
	c := LaunchCommand("booted", "com.example.App", []string{"-flag", "x y"}, map[string]string{"MODE": "1"})
	want := []string{"xcrun", "simctl", "launch", "--terminate-running-process", "booted", "com.example.App", "-flag", "x y"}
	if strings.Join(c.Argv, "|") != strings.Join(want, "|") {
		t.Errorf("argv %q", c.Argv)
	}
	if c.Env["SIMCTL_CHILD_MODE"] != "1" || len(c.Env) != 1 {
		t.Errorf("env %v", c.Env)
	}
}

func TestLogStreamPredicate(t *testing.T) {
	c := LogStreamCommand("booted", "com.example.App", "App")
	if got := c.Argv[len(c.Argv)-1]; got != `subsystem == "com.example.App" OR process == "App"` {
		t.Errorf("predicate %s", got)
	}
}

func TestLimitedBuffer(t *testing.T) {
	head := &limitedBuffer{max: 4}
	head.Write([]byte("abc"))
	head.Write([]byte("defg"))
	if head.String() != "abcd" || !head.over {
		t.Errorf("head %q over %v", head.String(), head.over)
	}
	tail := &limitedBuffer{max: 4, keepTail: true}
	tail.Write([]byte("abc"))
	tail.Write([]byte("defg"))
	if tail.String() != "defg" {
		t.Errorf("tail %q", tail.String())
	}
}

func TestRoleOf(t *testing.T) {
	cases := map[string]string{
		"Crashy": "app", "xctest": "test runner", "xctest3": "test runner", "CrashyUITests-Runner": "test runner",
		"testmanagerd": "testmanagerd", "launchd_sim": "simulator", "CoreSimulatorService": "simulator",
		"Safari": "", "": "", "ReportCrash": "",
	}
	for proc, want := range cases {
		if got := roleOf(proc, []string{"Crashy"}); got != want {
			t.Errorf("%q: role %q, want %q", proc, got, want)
		}
	}
}
