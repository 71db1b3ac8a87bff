package fakexcode_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/fakexcode"
)

func run(t *testing.T, argv ...string) (*spawn.Result, string) {
	t.Helper()
	var out bytes.Buffer
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: argv, Combined: &out})
	if err != nil {
		t.Fatal(err)
	}
	return res, out.String()
}

func TestFakeAnswersByRule(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "build.log")
	os.WriteFile(log, []byte("** BUILD FAILED **\n"), 0o644)
	f := fakexcode.Install(t, fakexcode.Scenario{Rules: []fakexcode.Rule{
		{Tool: "xcodebuild", Match: []string{"-list"}, Stdout: "{}\n"},
		{Tool: "xcodebuild", Match: []string{"-scheme", "*", "build"}, StdoutFile: log, Exit: 65},
		{Tool: "xcodebuild", Match: []string{"test"}, Signal: "SIGSEGV"},
		{Tool: "xcrun", Match: []string{"simctl", "io", "*", "screenshot"}, WriteArg: 1, WriteFile: log},
	}})

	res, out := run(t, "xcodebuild", "-project", "A.xcodeproj", "-scheme", "A", "build")
	if res.ExitCode != 65 || out != "** BUILD FAILED **\n" {
		t.Errorf("build: %s, output %q", res, out)
	}
	if res, _ := run(t, "xcodebuild", "-scheme", "A", "test"); !res.Signaled || res.Signal != syscall.SIGSEGV {
		t.Errorf("test: %s, want death by SIGSEGV", res)
	}
	shot := filepath.Join(dir, "shot.png")
	if res, _ := run(t, "xcrun", "simctl", "io", "booted", "screenshot", shot); !res.Success() {
		t.Errorf("screenshot: %s", res)
	}
	if _, err := os.Stat(shot); err != nil {
		t.Errorf("screenshot not written: %v", err)
	}
	res, out = run(t, "xcrun", "simctl", "boot", "X")
	if res.ExitCode != 70 || !bytes.Contains([]byte(out), []byte("no rule")) {
		t.Errorf("unmatched: %s, %q", res, out)
	}
	if c, ok := f.Find(t, "xcodebuild", "build"); !ok || c.Argv[len(c.Argv)-1] != "build" {
		t.Errorf("build call not recorded: %+v", f.Calls(t))
	}
	if n := len(f.Calls(t)); n != 4 {
		t.Errorf("%d calls recorded, want 4", n)
	}
}
