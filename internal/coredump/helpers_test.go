package coredump

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// crash runs a crashers program in a fresh directory with core dumps
// enabled and returns what the run left.
func crash(t testing.TB, name string, args ...string) (Crash, *spawn.Result) {
	t.Helper()
	exe := crashers.Build(t, name)
	dir := t.TempDir()
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: append([]string{exe}, args...), Dir: dir, CoreDumps: true})
	if err != nil {
		t.Fatalf("running %s: %v", name, err)
	}
	if !res.Signaled {
		t.Fatalf("%s did not die of a signal: %v", name, res)
	}
	return CrashFromResult(res), res
}

// realCore crashes a crashers program (given args) and returns its core,
// skipping with the reason when this machine does not leave one where we
// can read it.
func realCore(t testing.TB, name string, args ...string) (Crash, string) {
	t.Helper()
	c, res := crash(t, name, args...)
	arts, err := Find(context.Background(), c)
	if err != nil {
		pattern, _ := os.ReadFile("/proc/sys/kernel/core_pattern")
		t.Skipf("no core for %s (core_pattern %q, WCOREDUMP %v): %v", name, pattern, res.CoreDumped, err)
	}
	switch arts[0].Kind {
	case "core":
		return c, arts[0].Path
	case "coredumpctl":
		dest := filepath.Join(t.TempDir(), "core")
		if err := ExtractCoredumpctl(context.Background(), c.Pid, dest); err != nil {
			t.Skipf("core held by systemd-coredump but not extractable: %v", err)
		}
		return c, dest
	}
	t.Skipf("core went to %s (%s): this test needs a core file", arts[0].Kind, arts[0].Note)
	return c, ""
}
