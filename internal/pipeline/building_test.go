package pipeline

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/hangers"
	"github.com/triage-dev/triage/internal/toolchain"
)

// slowCompile is a -toolexec wrapper that runs each tool as asked, but
// hands go's compiler a FIFO (SLOW_FIFO) for the source file named
// SLOW_SOURCE: the real compiler then reads it, compiling, until killed.
const slowCompile = `package main

import (
	"os"
	"path/filepath"
	"syscall"
)

func main() {
	tool, args := os.Args[1], os.Args[2:]
	for i, a := range args {
		if filepath.Base(tool) == "compile" && filepath.Base(a) == os.Getenv("SLOW_SOURCE") {
			args[i] = os.Getenv("SLOW_FIFO")
		}
	}
	err := syscall.Exec(tool, append([]string{tool}, args...), os.Environ())
	os.Stderr.WriteString(err.Error())
	os.Exit(2)
}
`

// TestTimedOutWhileStillBuilding: a Go test run whose time limit passes
// while go's compiler is still compiling the package (it reads its source
// from a FIFO no one writes: certain, not slow) says it was still building,
// and takes no compiler stacks for a test's.
func TestTimedOutWhileStillBuilding(t *testing.T) {
	hangers.Need(t, "go")
	tools := t.TempDir()
	if err := os.WriteFile(filepath.Join(tools, "main.go"), []byte(slowCompile), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(tools, "go.mod"), []byte("module slowcompile\n\ngo 1.22\n"), 0o644)
	wrapper := filepath.Join(tools, "slowcompile")
	build := exec.Command("go", "build", "-o", wrapper, ".")
	build.Dir = tools
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the wrapper: %v\n%s", err, out)
	}
	dir := t.TempDir()
	for name, src := range map[string]string{
		"go.mod":                "module slow\n\ngo 1.22\n",
		"triage_slow_source.go": "package slow\n\n// Deadlock never returns.\nfunc Deadlock() { select {} }\n",
		"slow_test.go":          "package slow_test\n\nimport (\n\t\"testing\"\n\n\t\"slow\"\n)\n\nfunc TestDeadlock(t *testing.T) { slow.Deadlock() }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fifo := filepath.Join(t.TempDir(), "source")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	steps, err := toolchain.TestPlan(toolchain.Go, dir, toolchain.Options{Env: map[string]string{
		"GOFLAGS": "-toolexec=" + wrapper, "SLOW_SOURCE": "triage_slow_source.go", "SLOW_FIFO": fifo}})
	if err != nil {
		t.Fatal(err)
	}
	// The time limit passes once the compiler has opened the FIFO; the
	// writer's end stays open (never written) until the run is over.
	ctx := testutil.NewExpireOn("ready")
	opened := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			io.WriteString(ctx, "ready")
		}
		opened <- w
	}()
	t.Cleanup(func() {
		// A reader of our own ends a wait for the compiler that never came.
		if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			defer r.Close()
		}
		if w := <-opened; w != nil {
			w.Close()
		}
	})
	var raw syncBuilder
	res, err := Run(ctx, Request{Kind: KindTest, Steps: steps, Level: logfilter.Standard, Raw: &raw, ProgressInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !ctx.Expired() {
		t.Fatalf("the compiler never opened its source: %s %q\n%s", res.Status, res.Line, tail(raw.String()))
	}
	if res.Status != TimedOut || !strings.HasPrefix(res.Line, "TIMED OUT after ") ||
		!strings.Contains(res.Line, " while still building (") || !strings.Contains(res.Line, "go's compiler") ||
		!strings.HasSuffix(res.Line, " running; no test had started)") {
		t.Fatalf("%s %q: want TIMED OUT … while still building (go's compiler was running; no test had started)\n%s", res.Status, res.Line, tail(raw.String()))
	}
	if h := res.Hang; h == nil || len(h.Stuck) > 0 || len(h.Processes) > 0 || len(h.Building) == 0 {
		t.Errorf("hang report %+v: no process's stacks may be taken for the test's", h)
	}
	if strings.Contains(raw.String(), "goroutine ") || strings.Contains(raw.String(), "SIGQUIT") {
		t.Errorf("the compiler was made to dump its stacks:\n%s", tail(raw.String()))
	}
	t.Logf("verdict: %s", res.Line)
}
