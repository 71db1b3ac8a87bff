package coredump

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/triage-dev/triage/internal/proc"
)

var crasherBuild struct {
	once sync.Once
	dir  string
	exe  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if crasherBuild.dir != "" {
		os.RemoveAll(crasherBuild.dir)
	}
	os.Exit(code)
}

// crasher compiles testdata/crasher.c once per test binary with gcc -g -O0.
func crasher(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: install the gcc package to build the test crasher")
	}
	b := &crasherBuild
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "coredump-crasher-")
		if b.err != nil {
			return
		}
		src, _ := filepath.Abs("testdata/crasher.c")
		b.exe = filepath.Join(b.dir, "crasher")
		var res *proc.Result
		out := &capBuffer{max: 1 << 16}
		res, b.err = proc.Run(context.Background(), proc.Spec{
			Argv: []string{"gcc", "-g", "-O0", "-o", b.exe, src}, Combined: out})
		if b.err == nil && !res.Success() {
			b.err = &buildError{res.String() + ": " + out.buf.String()}
		}
	})
	if b.err != nil {
		t.Fatalf("building crasher: %v", b.err)
	}
	return b.exe
}

type buildError struct{ msg string }

func (e *buildError) Error() string { return e.msg }

// crash runs the crasher in a fresh directory with core dumps enabled and
// returns what the run left.
func crash(t *testing.T, mode string) (Crash, *proc.Result) {
	t.Helper()
	exe := crasher(t)
	dir := t.TempDir()
	res, err := proc.Run(context.Background(), proc.Spec{Argv: []string{exe, mode}, Dir: dir, CoreDumps: true})
	if err != nil {
		t.Fatalf("running crasher: %v", err)
	}
	if !res.Signaled {
		t.Fatalf("crasher %s did not die of a signal: %v", mode, res)
	}
	return CrashFromResult(res), res
}

// realCore crashes the crasher and returns its core, skipping with the
// reason when this machine does not leave one where we can read it.
func realCore(t *testing.T, mode string) (Crash, string) {
	t.Helper()
	c, res := crash(t, mode)
	arts, err := Find(context.Background(), c)
	if err != nil {
		pattern, _ := os.ReadFile("/proc/sys/kernel/core_pattern")
		t.Skipf("no core for the crasher (core_pattern %q, WCOREDUMP %v): %v", pattern, res.CoreDumped, err)
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
